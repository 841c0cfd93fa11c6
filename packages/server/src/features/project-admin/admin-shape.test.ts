/**
 * The admin project read has exactly the fields of PROTOCOL.md §3.10 (with the `is_development_environment` and
 * `onboarding_state` that npm ≥2.8.102 expects), on every route that answers with it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUuid } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Shapes");
});
afterAll(() => server.close());

const PROJECT_KEYS = [
  "config",
  "created_at_millis",
  "description",
  "display_name",
  "id",
  "is_development_environment",
  "is_production_mode",
  "logo_dark_mode_url",
  "logo_full_dark_mode_url",
  "logo_full_url",
  "logo_url",
  "onboarding_state",
  "onboarding_status",
  "owner_team_id",
];

const CONFIG_KEYS = [
  "allow_localhost",
  "allow_team_api_keys",
  "allow_user_api_keys",
  "client_team_creation_enabled",
  "client_user_deletion_enabled",
  "create_team_on_sign_up",
  "credential_enabled",
  "domains",
  "email_config",
  "email_theme",
  "enabled_oauth_providers",
  "magic_link_enabled",
  "oauth_account_merge_strategy",
  "oauth_providers",
  "passkey_enabled",
  "sign_up_enabled",
  "team_creator_default_permissions",
  "team_member_default_permissions",
  "user_default_permissions",
];

const keysOf = (value: object) => Object.keys(value).sort();

function expectAdminShape(body: { config: Record<string, unknown> }) {
  expect(keysOf(body)).toEqual(PROJECT_KEYS);
  expect(keysOf(body.config)).toEqual(CONFIG_KEYS);
  expect(body.config.email_theme).toMatch(/^[0-9a-f-]{36}$/);
}

describe("the admin project read", () => {
  it("has exactly the protocol's fields on GET and PATCH /internal/projects/current", async () => {
    const read = await server.request("/api/v1/internal/projects/current", {
      headers: project.headers("admin"),
    });
    expect(read.status, read.text).toBe(200);
    expectAdminShape(read.body);
    expect(read.body).toMatchObject({ is_development_environment: true, onboarding_state: null });

    const patched = await server.request("/api/v1/internal/projects/current", {
      method: "PATCH",
      headers: project.headers("admin"),
      body: {
        description: "With providers and an email server",
        config: {
          oauth_providers: [{ id: "github", type: "standard", client_id: "id", client_secret: "secret" }],
          email_config: {
            type: "standard",
            host: "smtp.example.com",
            port: 587,
            username: "user",
            password: "password",
            sender_name: "Shapes",
            sender_email: "noreply@example.com",
          },
        },
      },
    });
    expect(patched.status, patched.text).toBe(200);
    expectAdminShape(patched.body);
    expect(keysOf(patched.body.config.oauth_providers[0])).toEqual([
      "client_id",
      "client_secret",
      "id",
      "provider_config_id",
      "type",
    ]);
    expect(keysOf(patched.body.config.email_config)).toEqual([
      "host",
      "password",
      "port",
      "sender_email",
      "sender_name",
      "type",
      "username",
    ]);
  });

  it("keeps email_theme when the override clears the selected theme", async () => {
    const target = await server.createProject("No theme");
    await target.configure({ "emails.selectedThemeId": null });
    const read = await server.request("/api/v1/internal/projects/current", {
      headers: target.headers("admin"),
    });
    expectAdminShape(read.body);
  });

  it("has exactly the protocol's fields when created and listed", async () => {
    const owner = await createSignedInUser(server, "internal", {
      primaryEmail: `owner-${randomUuid()}@example.com`,
      primaryEmailVerified: true,
    });
    const headers = server.internal.headers("client", { "x-stack-access-token": owner.accessToken });
    const created = await server.request("/api/v1/internal/projects", {
      method: "POST",
      headers,
      body: { display_name: "Created", owner_team_id: owner.user.selectedTeamId },
    });
    expect(created.status, created.text).toBe(201);
    expectAdminShape(created.body);
    const listed = await server.request("/api/v1/internal/projects", { headers });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(1);
    expectAdminShape(listed.body.items[0]);
  });
});
