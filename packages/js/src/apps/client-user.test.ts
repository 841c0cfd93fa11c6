import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAccessToken } from "../session/jwt.ts";
import { appsFor, uniqueEmail } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";

const PASSWORD = "correct horse battery";
const CALLBACK = "http://localhost:3000/handler/email-verification";
let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  gh = await startGatehouse();
  const project = await gh.createProject("Client user tests");
  apps = appsFor(gh, project);
  await apps
    .admin()
    .getProject()
    .then((p) => p.update({ config: { clientTeamCreationEnabled: true } }));
});
afterAll(() => gh?.close());

async function signedIn(email = uniqueEmail()) {
  const app = apps.client();
  const result = await app.signUpWithCredential({
    email,
    password: PASSWORD,
    verificationCallbackUrl: CALLBACK,
  });
  if (result.status !== "ok") throw result.error;
  return { app, email, user: await app.getUser({ or: "throw" }) };
}

describe("the current user", () => {
  it("updates profile fields, and the refreshed access token carries them", async () => {
    const { app, user } = await signedIn();
    await user.update({ displayName: "Ada", clientMetadata: { theme: "dark" } });
    const updated = await app.getUser({ or: "throw" });
    expect(updated).toMatchObject({ displayName: "Ada", clientMetadata: { theme: "dark" } });
    expect(decodeAccessToken((await app.getAccessToken())!)?.name).toBe("Ada");
    await updated.setDisplayName(null);
    expect((await app.getUser())?.displayName).toBeNull();
  });

  it("changes the password, reporting a wrong old one as a value", async () => {
    const { app, email, user } = await signedIn();
    const wrong = await user.updatePassword({
      oldPassword: "not my password",
      newPassword: "new password 123",
    });
    expect(wrong?.code).toBe("PASSWORD_CONFIRMATION_MISMATCH");
    expect(
      await user.updatePassword({ oldPassword: PASSWORD, newPassword: "new password 123" }),
    ).toBeUndefined();
    // The current session survives the change.
    expect((await app.getUser())?.primaryEmail).toBe(email);
    const other = apps.client();
    expect((await other.signInWithCredential({ email, password: "new password 123" })).status).toBe("ok");
  });

  it("verifies the primary email with the code from the sign-up email", async () => {
    const { app, email, user } = await signedIn(uniqueEmail("verify"));
    expect(user.primaryEmailVerified).toBe(false);
    const code = await gh.latestEmailCode(app.projectId, email);
    expect((await app.verifyEmail(code)).status).toBe("ok");
    expect((await app.getUser())?.primaryEmailVerified).toBe(true);
    expect((await user.sendVerificationEmail({ callbackUrl: CALLBACK }))?.code).toBe(
      "EMAIL_ALREADY_VERIFIED",
    );
  });

  it("manages contact channels", async () => {
    const { user, email } = await signedIn();
    const extra = uniqueEmail("second");
    const created = await user.createContactChannel({ type: "email", value: extra, usedForAuth: false });
    expect(created).toMatchObject({ value: extra, isPrimary: false, isVerified: false, usedForAuth: false });
    expect((await user.listContactChannels()).map((c) => c.value).sort()).toEqual([email, extra].sort());
    await created.update({ usedForAuth: true });
    expect((await user.listContactChannels()).find((c) => c.id === created.id)?.usedForAuth).toBe(true);
    await created.delete();
    expect((await user.listContactChannels()).map((c) => c.value)).toEqual([email]);
  });

  it("deletes the user when the project allows it, and is signed out after", async () => {
    const { app, user } = await signedIn();
    await expect(user.delete()).rejects.toThrow();
    await apps
      .admin()
      .getProject()
      .then((p) => p.update({ config: { clientUserDeletionEnabled: true } }));
    try {
      await (await app.getUser({ or: "throw" })).delete();
      expect(await app.getUser()).toBeNull();
      expect(await app.getRefreshToken()).toBeNull();
    } finally {
      await apps
        .admin()
        .getProject()
        .then((p) => p.update({ config: { clientUserDeletionEnabled: false } }));
    }
  });

  it("creates, lists and leaves teams", async () => {
    const { app, user } = await signedIn();
    const team = await user.createTeam({ displayName: "Team A" });
    expect(team.displayName).toBe("Team A");
    expect((await user.listTeams()).map((t) => t.id)).toEqual([team.id]);
    await user.setSelectedTeam(team);
    expect((await app.getUser())?.selectedTeam?.id).toBe(team.id);
    // A custom permission, defined by the admin and granted by the server, shows with what it contains.
    const admin = apps.admin();
    await admin.createTeamPermissionDefinition({
      id: `tester_${Date.now()}`,
      containedPermissionIds: ["$read_members"],
    });
    const [definition] = (await admin.listTeamPermissionDefinitions()).filter((d) =>
      d.id.startsWith("tester_"),
    );
    await (await apps.server().getUser(user.id))!.grantPermission(team, definition!.id);
    const ids = (await user.listPermissions(team)).map((p) => p.id);
    expect(ids).toEqual(expect.arrayContaining([definition!.id, "$read_members"]));
    expect((await user.listPermissions(team, { recursive: false })).map((p) => p.id)).not.toContain(
      "$read_members",
    );
    expect(await user.hasPermission(team, definition!.id)).toBe(true);
    expect(await user.hasPermission(team, "no_such_permission")).toBe(false);
    await user.leaveTeam(team);
    expect(await user.listTeams()).toEqual([]);
  });

  it("lists notification categories", async () => {
    const { user } = await signedIn();
    const categories = await user.listNotificationCategories();
    expect(categories.map((c) => c.name).sort()).toEqual(["Marketing", "Transactional"]);
    const marketing = categories.find((c) => c.name === "Marketing")!;
    await marketing.setEnabled(false);
    expect((await user.listNotificationCategories()).find((c) => c.name === "Marketing")?.enabled).toBe(
      false,
    );
  });
});

describe("user API keys", () => {
  it("creates, lists and revokes keys, and a server finds the key's user", async () => {
    await apps
      .admin()
      .getProject()
      .then((p) => p.updateConfig({ "apiKeys.enabled.user": true }));
    const { user } = await signedIn();
    const created = await user.createApiKey({ description: "cli", expiresAt: null });
    expect(created.value).toMatch(/^sk_/);
    expect(created.isValid()).toBe(true);
    const [listed] = await user.listApiKeys();
    expect(listed).toMatchObject({
      id: created.id,
      value: { lastFour: created.value.slice(-4) },
      type: "user",
    });
    expect((await apps.server().getUser({ apiKey: created.value }))?.id).toBe(user.id);
    await listed!.revoke();
    expect((await user.listApiKeys())[0]?.whyInvalid()).toBe("manually-revoked");
    expect(await apps.server().getUser({ apiKey: created.value })).toBeNull();
  });
});

describe("the project", () => {
  it("reads the client view of the project", async () => {
    const project = await apps.client().getProject();
    expect(project).toMatchObject({
      displayName: "Client user tests",
      config: { credentialEnabled: true, signUpEnabled: true, clientTeamCreationEnabled: true },
    });
  });
});

describe("command-line login (PROTOCOL.md §4.9)", () => {
  it("polls until the signed-in browser confirms, then hands over a session", async () => {
    const { app: browser, user } = await signedIn();
    let link = "";
    let loginCode = "";
    const sleeps: number[] = [];
    const cli = apps.client({
      runtime: {
        sleep: async (ms) => {
          sleeps.push(ms);
          // The user confirms in the browser while the CLI waits between its first and second poll.
          if (sleeps.length === 1) await browser.completeCliLogin(loginCode);
        },
      },
    });
    const result = await cli.promptCliLogin({
      appUrl: "http://localhost:3000/",
      promptLink: (url, code) => {
        link = url;
        loginCode = code;
      },
    });
    expect(link).toBe(`http://localhost:3000/handler/cli-auth-confirm?login_code=${loginCode}`);
    expect(result.status).toBe("ok");
    expect(sleeps).toEqual([2000]);
    const refreshToken = result.status === "ok" ? result.data : "";
    const signedInCli = apps.client({ tokenStore: { accessToken: null, refreshToken } });
    expect((await signedInCli.getUser())?.id).toBe(user.id);
  });

  it("gives up after maxAttempts polls", async () => {
    const sleeps: number[] = [];
    const cli = apps.client({ runtime: { sleep: async (ms) => void sleeps.push(ms) } });
    const result = await cli.promptCliLogin({
      appUrl: "http://localhost:3000",
      promptLink: () => {},
      maxAttempts: 3,
    });
    expect(result.status === "error" && [result.error.code, result.error.message]).toEqual([
      "CLI_AUTH_ERROR",
      "Timed out waiting for CLI authentication.",
    ]);
    expect(sleeps).toEqual([2000, 2000]);
  });
});
