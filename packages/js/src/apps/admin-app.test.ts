import { isKnownError } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appsFor, recordingRuntime, uniqueEmail } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";
import { withClaims } from "../testing/tokens.ts";
import { GatehouseAdminApp } from "./admin-app.ts";
import { gatehouseInternals } from "./client-app.ts";
import { GatehouseServerApp } from "./server-app.ts";

let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  gh = await startGatehouse();
  apps = appsFor(gh, await gh.createProject("Admin app tests"));
});
afterAll(() => gh?.close());

describe("the project, with the admin key", () => {
  it("reads and updates the project and its legacy config", async () => {
    const admin = apps.admin();
    const project = await admin.getProject();
    expect(project).toMatchObject({ displayName: "Admin app tests", isProductionMode: false });
    expect(project.config).toMatchObject({ signUpEnabled: true, allowLocalhost: true, domains: [] });

    await project.update({
      description: "managed by the SDK",
      config: {
        signUpEnabled: false,
        domains: [{ domain: "https://app.example.com", handlerPath: "/auth" }],
      },
    });
    const updated = await admin.getProject();
    expect(updated.description).toBe("managed by the SDK");
    expect(updated.config.domains).toEqual([{ domain: "https://app.example.com", handlerPath: "/auth" }]);
    expect((await apps.client().getProject()).config.signUpEnabled).toBe(false);
    await updated.update({ config: { signUpEnabled: true } });
  });

  it("changes config overrides and reads the rendered config", async () => {
    const project = await apps.admin().getProject();
    await project.updateConfig({ "teams.allowClientTeamCreation": true });
    const config = (await project.getConfig()) as { teams: { allowClientTeamCreation: boolean } };
    expect(config.teams.allowClientTeamCreation).toBe(true);
    // The server keeps the override as written, dot-notation keys included.
    expect(await project.getConfigOverride("environment")).toMatchObject({
      "teams.allowClientTeamCreation": true,
    });
    expect((await apps.client().getProject()).config.clientTeamCreationEnabled).toBe(true);
  });

  it("creates, lists and revokes internal API keys", async () => {
    const admin = apps.admin();
    const created = await admin.createInternalApiKey({
      description: "ci",
      expiresAt: new Date(Date.now() + 3600_000),
      hasPublishableClientKey: false,
      hasSecretServerKey: true,
      hasSuperSecretAdminKey: false,
    });
    expect(created.secretServerKey).toMatch(/^ssk_/);
    expect(created.publishableClientKey).toBeUndefined();
    const listed = (await admin.listInternalApiKeys()).find((key) => key.id === created.id)!;
    expect(listed.secretServerKey?.lastFour).toBe(created.secretServerKey!.slice(-4));
    expect(listed.isValid()).toBe(true);

    const server = new GatehouseServerApp({
      projectId: admin.projectId,
      baseUrl: gh.baseUrl,
      secretServerKey: created.secretServerKey,
      tokenStore: null,
      noAutomaticPrefetch: true,
    });
    await server.listUsers();
    await listed.revoke();
    const revoked = (await admin.listInternalApiKeys()).find((key) => key.id === created.id)!;
    expect(revoked.whyInvalid()).toBe("manually-revoked");
    expect(isKnownError(await server.listUsers().catch((e) => e), "INVALID_SECRET_SERVER_KEY")).toBe(true);
  });

  it("a wrong admin key is a typed error", async () => {
    const wrong = new GatehouseAdminApp({
      projectId: apps.admin().projectId,
      baseUrl: gh.baseUrl,
      superSecretAdminKey: "sak_wrong",
      noAutomaticPrefetch: true,
    });
    expect(isKnownError(await wrong.getProject().catch((e) => e), "INVALID_SUPER_SECRET_ADMIN_KEY")).toBe(
      true,
    );
  });
});

describe("emails", () => {
  it("lists the emails the project sent", async () => {
    const email = uniqueEmail("outbox");
    await apps.client().signUpWithCredential({
      email,
      password: "a password 123",
      verificationCallbackUrl: "http://localhost:3000/handler/email-verification",
    });
    // Queued at once, rendered by the outbox worker a moment later.
    await expect
      .poll(
        async () => (await apps.admin().listSentEmails()).find((item) => item.to.includes(email))?.subject,
      )
      .toMatch(/^Verify your email at /);
  });

  it("reports a failing email server as an error result", async () => {
    const result = await apps.admin().sendTestEmail({
      recipientEmail: "someone@example.com",
      emailConfig: {
        host: "127.0.0.1",
        port: 1,
        username: "u",
        password: "p",
        senderEmail: "noreply@example.com",
        senderName: "Test",
      },
    });
    expect(result.status).toBe("error");
    expect(result.status === "error" && result.error.errorMessage.length).toBeGreaterThan(0);
  });
});

describe("project owners (PROTOCOL.md §6)", () => {
  async function ownerApps() {
    const owner = await gh.createProjectOwner();
    const internal = appsFor(gh, { id: "internal", keys: gh.internalKeys }).client();
    await internal[gatehouseInternals].signInWithTokens(owner);
    const user = await internal.getUser({ or: "throw" });
    return { owner, internal, user };
  }

  it("an owner's session replaces the keys, and a rejected admin token is refreshed", async () => {
    const { owner, user } = await ownerApps();
    const admin = new GatehouseAdminApp({
      projectId: owner.projectId,
      baseUrl: gh.baseUrl,
      projectOwnerSession: user._internalSession,
      noAutomaticPrefetch: true,
    });
    expect((await admin.getProject()).displayName).toBe("Owned project");

    // A token the server refuses (bad signature) is refreshed once, then the call goes through.
    const { runtime, calls } = recordingRuntime();
    const session = user._internalSession;
    const forged = withClaims(owner.accessToken, { name: "x" });
    session.setTokens({ accessToken: forged, refreshToken: owner.refreshToken });
    const again = new GatehouseAdminApp({
      projectId: owner.projectId,
      baseUrl: gh.baseUrl,
      projectOwnerSession: session,
      noAutomaticPrefetch: true,
      runtime,
    });
    expect((await again.listInternalApiKeys()).length).toBeGreaterThanOrEqual(0);
    // The owner's session refreshed itself (against the internal project), then the call was sent again.
    expect(calls).toEqual(["GET /internal/api-keys", "GET /internal/api-keys"]);
    expect(session.peekTokens().accessToken).not.toBe(forged);
    expect(session.peekTokens().accessToken).toBeTruthy();
  });

  it("an internal user creates and lists their projects, each with an admin app", async () => {
    const { user } = await ownerApps();
    const teamId = user.selectedTeam?.id ?? (await user.listTeams())[0]?.id;
    expect(teamId).toBeTruthy();
    const project = await user.createProject!({ displayName: "Made by the SDK", teamId: teamId! });
    expect(project.displayName).toBe("Made by the SDK");
    const keys = await project.app.createInternalApiKey({
      description: "first keys",
      expiresAt: new Date(Date.now() + 3600_000),
      hasPublishableClientKey: true,
      hasSecretServerKey: true,
      hasSuperSecretAdminKey: false,
    });
    const client = appsFor(gh, {
      id: project.id,
      keys: {
        publishableClientKey: keys.publishableClientKey!,
        secretServerKey: "",
        superSecretAdminKey: "",
      },
    }).client();
    expect((await client.getProject()).displayName).toBe("Made by the SDK");
    const owned = await user.listOwnedProjects!();
    expect(owned.map((p) => p.id)).toContain(project.id);
  });
});
