/**
 * How project configs are stored: secrets encrypted at rest, and legacy config updates that can take away what the
 * lower levels set.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfigOverride, normalizeOverride } from "../../config/index.ts";
import { patchLegacyConfig } from "../../config/test-support.ts";
import { encryptSecret } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { getRenderedConfig, patchConfigOverride } from "./config-store.ts";
import { projectConfigOverrides } from "./schema.ts";

let server: TestServer;

beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

const OAUTH_SECRET = "oauth-client-secret-in-plain-text";
const SMTP_PASSWORD = "smtp-password-in-plain-text";

async function rawRows(projectId: string) {
  return server.deps.db
    .select({ level: projectConfigOverrides.level, override: projectConfigOverrides.override })
    .from(projectConfigOverrides)
    .where(eq(projectConfigOverrides.projectId, projectId));
}

async function rawText(projectId: string): Promise<string> {
  return JSON.stringify(await rawRows(projectId));
}

const adminGet = (project: TestProject, path: string) =>
  server.request(`/api/v1${path}`, { headers: project.headers("admin") });

const patchLegacy = (project: TestProject, config: unknown) => patchLegacyConfig(server, project, config);

async function renderedOverHttp(project: TestProject) {
  return JSON.parse((await adminGet(project, "/internal/config")).body.config_string);
}

describe("config secrets at rest", () => {
  let project: TestProject;
  beforeAll(async () => {
    project = await server.createProject("Secrets");
  });

  it("stores OAuth client secrets and the SMTP password encrypted, and shows them to admins", async () => {
    const view = await patchLegacy(project, {
      oauth_providers: [{ id: "github", type: "standard", client_id: "gh-id", client_secret: OAUTH_SECRET }],
      email_config: {
        type: "standard",
        host: "smtp.example.com",
        port: 587,
        username: "mailer",
        password: SMTP_PASSWORD,
        sender_name: "Acme",
        sender_email: "noreply@example.com",
      },
    });
    expect(view.config.oauth_providers[0].client_secret).toBe(OAUTH_SECRET);
    expect(view.config.email_config.password).toBe(SMTP_PASSWORD);

    const raw = await rawText(project.id);
    expect(raw).not.toContain(OAUTH_SECRET);
    expect(raw).not.toContain(SMTP_PASSWORD);
    const [environment] = (await rawRows(project.id)).filter((row) => row.level === "environment");
    // Stored as written (dotted keys kept); its meaning is the nested form.
    const stored = normalizeOverride(environment!.override as ConfigOverride) as any;
    expect(stored.auth.oauth.providers.github.clientSecret).toMatch(/^v1\./);
    expect(stored.emails.server.password).toMatch(/^v1\./);
    expect(stored.auth.oauth.providers.github.clientId).toBe("gh-id");

    const legacy = (await adminGet(project, "/internal/projects/current")).body.config;
    expect(legacy.oauth_providers[0].client_secret).toBe(OAUTH_SECRET);
    expect(legacy.email_config.password).toBe(SMTP_PASSWORD);
    const rendered = await renderedOverHttp(project);
    expect(rendered.auth.oauth.providers.github.clientSecret).toBe(OAUTH_SECRET);
    expect(rendered.emails.server.password).toBe(SMTP_PASSWORD);
    const override = await adminGet(project, "/internal/config/override/environment");
    expect(normalizeOverride(JSON.parse(override.body.config_string)).emails).toMatchObject({
      server: { password: SMTP_PASSWORD },
    });
    expect((await getRenderedConfig(server.deps, project.id)).emails.server.password).toBe(SMTP_PASSWORD);
  });

  it("encrypts secrets written through the override endpoints, at any level, and keeps them on other writes", async () => {
    const put = await server.request("/api/v1/internal/config/override/project", {
      method: "PATCH",
      headers: project.headers("admin"),
      body: {
        config_override_string: JSON.stringify({
          "auth.oauth.providers.google": {
            type: "google",
            isShared: false,
            clientId: "g-id",
            clientSecret: "google-secret-in-plain-text",
            allowSignIn: true,
            allowConnectedAccounts: true,
          },
        }),
      },
    });
    expect(put.status, put.text).toBe(200);
    const patched = await server.request("/api/v1/internal/config/override/environment", {
      method: "PATCH",
      headers: project.headers("admin"),
      body: { config_override_string: JSON.stringify({ "emails.server.password": "rotated-smtp-password" }) },
    });
    expect(patched.status, patched.text).toBe(200);
    await patchLegacy(project, { magic_link_enabled: true });

    const raw = await rawText(project.id);
    for (const secret of ["google-secret-in-plain-text", "rotated-smtp-password", OAUTH_SECRET]) {
      expect(raw).not.toContain(secret);
    }
    const rendered = await renderedOverHttp(project);
    expect(rendered.auth.oauth.providers.google.clientSecret).toBe("google-secret-in-plain-text");
    expect(rendered.auth.oauth.providers.github.clientSecret).toBe(OAUTH_SECRET);
    expect(rendered.emails.server.password).toBe("rotated-smtp-password");
    expect(rendered.auth.otp.allowSignIn).toBe(true);
  });

  it("still reads a secret stored in plain text before encryption, and encrypts it on the next write", async () => {
    const legacyProject = await server.createProject("Old rows");
    await patchConfigOverride(server.deps, legacyProject.id, "environment", {
      "emails.server.isShared": true,
    });
    await server.deps.db
      .update(projectConfigOverrides)
      .set({
        override: {
          emails: {
            server: {
              isShared: false,
              host: "smtp.example.com",
              port: 25,
              password: "stored-before-encryption",
              senderEmail: "a@example.com",
            },
          },
        },
      })
      .where(
        and(
          eq(projectConfigOverrides.projectId, legacyProject.id),
          eq(projectConfigOverrides.level, "environment"),
        ),
      );
    expect((await renderedOverHttp(legacyProject)).emails.server.password).toBe("stored-before-encryption");
    await patchLegacy(legacyProject, { sign_up_enabled: false });
    expect(await rawText(legacyProject.id)).not.toContain("stored-before-encryption");
    expect((await renderedOverHttp(legacyProject)).emails.server.password).toBe("stored-before-encryption");
  });

  it("refuses to hand out a secret encrypted under another master secret", async () => {
    const foreign = await server.createProject("Foreign");
    const alien = encryptSecret("not ours", {
      masterSecret: "some-other-master-secret-entirely",
      purpose: "config-secret",
    });
    await server.deps.db
      .update(projectConfigOverrides)
      .set({ override: { emails: { server: { isShared: false, password: alien } } } })
      .where(
        and(
          eq(projectConfigOverrides.projectId, foreign.id),
          eq(projectConfigOverrides.level, "environment"),
        ),
      );
    await expect(getRenderedConfig(server.deps, foreign.id)).rejects.toThrow(/GATEHOUSE_SECRET/);
  });
});

describe("legacy default permission lists", () => {
  let project: TestProject;
  beforeAll(async () => {
    project = await server.createProject("Permissions");
  });

  async function creatorPermissions() {
    const { user } = await createSignedInUser(server, project.id, {});
    const team = await server.request("/api/v1/teams", {
      method: "POST",
      headers: project.headers("server"),
      body: { display_name: "Made", creator_user_id: user.id },
    });
    expect(team.status, team.text).toBe(201);
    const listed = await server.request(
      `/api/v1/team-permissions?team_id=${team.body.id}&user_id=${user.id}&recursive=false`,
      { headers: project.headers("server") },
    );
    expect(listed.status, listed.text).toBe(200);
    return listed.body.items.map((item: { id: string }) => item.id).sort();
  }

  it("takes team_admin away from team creators through PATCH /internal/projects/current", async () => {
    expect(await creatorPermissions()).toEqual(["team_admin"]);
    const view = await patchLegacy(project, { team_creator_default_permissions: [{ id: "team_member" }] });
    expect(view.config.team_creator_default_permissions).toEqual([{ id: "team_member" }]);
    expect((await renderedOverHttp(project)).rbac.defaultPermissions.teamCreator).toEqual({
      team_member: true,
    });
    expect(await creatorPermissions()).toEqual(["team_member"]);

    const none = await patchLegacy(project, { team_creator_default_permissions: [] });
    expect(none.config.team_creator_default_permissions).toEqual([]);
    expect(await creatorPermissions()).toEqual([]);

    const back = await patchLegacy(project, { team_creator_default_permissions: [{ id: "team_admin" }] });
    expect(back.config.team_creator_default_permissions).toEqual([{ id: "team_admin" }]);
    expect(await creatorPermissions()).toEqual(["team_admin"]);
  });

  it("takes team_member away from members, leaving the creator list alone", async () => {
    const view = await patchLegacy(project, { team_member_default_permissions: [] });
    expect(view.config.team_member_default_permissions).toEqual([]);
    expect(view.config.team_creator_default_permissions).toEqual([{ id: "team_admin" }]);
  });

  it("does the same when a project is created with a legacy config", async () => {
    const owner = await createSignedInUser(server, "internal", {
      primaryEmail: "owner-legacy@example.com",
      primaryEmailVerified: true,
    });
    const team = await server.request("/api/v1/teams", {
      method: "POST",
      headers: server.internal.headers("server"),
      body: { display_name: "Owners", creator_user_id: owner.user.id },
    });
    expect(team.status, team.text).toBe(201);
    const created = await server.request("/api/v1/internal/projects", {
      method: "POST",
      headers: server.internal.headers("client", { "x-stack-access-token": owner.accessToken }),
      body: {
        display_name: "Made with config",
        owner_team_id: team.body.id,
        config: { team_creator_default_permissions: [{ id: "$read_members" }] },
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.config.team_creator_default_permissions).toEqual([{ id: "$read_members" }]);
  });
});
