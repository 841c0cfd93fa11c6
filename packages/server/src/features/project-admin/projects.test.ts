import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NEW_PROJECT_LEGACY_SWITCHES } from "../../config/test-support.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Acme");
});
afterAll(() => server.close());

describe("GET /projects/current", () => {
  it("gives clients the client view with the defaults of a new project", async () => {
    const response = await server.request("/api/v1/projects/current", { headers: project.headers("client") });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: project.id,
      display_name: "Acme",
      config: {
        ...NEW_PROJECT_LEGACY_SWITCHES,
        enabled_oauth_providers: [],
        domains: [],
      },
    });
  });
});

describe("/internal/projects/current", () => {
  it("gives admins the admin view with the legacy config defaults", async () => {
    const response = await server.request("/api/v1/internal/projects/current", {
      headers: project.headers("admin"),
    });
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body).toMatchObject({
      id: project.id,
      display_name: "Acme",
      description: "",
      is_production_mode: false,
      owner_team_id: null,
      onboarding_status: "completed",
      logo_url: null,
      logo_full_url: null,
    });
    expect(typeof body.created_at_millis).toBe("number");
    expect(body.config).toMatchObject({
      ...NEW_PROJECT_LEGACY_SWITCHES,
      create_team_on_sign_up: false,
      domains: [],
      oauth_providers: [],
      enabled_oauth_providers: [],
      email_config: { type: "shared" },
      team_creator_default_permissions: [{ id: "team_admin" }],
      team_member_default_permissions: [{ id: "team_member" }],
      user_default_permissions: [],
      oauth_account_merge_strategy: "link_method",
    });
  });

  it("updates fields and the legacy config, and the layered config agrees", async () => {
    const response = await server.request("/api/v1/internal/projects/current", {
      method: "PATCH",
      headers: project.headers("admin"),
      body: {
        display_name: "Acme Inc",
        description: "Rockets",
        logo_url: "https://acme.example/logo.png",
        config: {
          magic_link_enabled: true,
          allow_localhost: false,
          domains: [{ domain: "https://app.acme.example", handler_path: "/auth" }],
          oauth_providers: [
            { id: "github", type: "standard", client_id: "gh-id", client_secret: "gh-secret" },
          ],
        },
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.display_name).toBe("Acme Inc");
    expect(response.body.description).toBe("Rockets");
    expect(response.body.config.magic_link_enabled).toBe(true);
    expect(response.body.config.domains).toEqual([
      { domain: "https://app.acme.example", handler_path: "/auth" },
    ]);
    expect(response.body.config.oauth_providers[0]).toMatchObject({
      id: "github",
      type: "standard",
      client_id: "gh-id",
    });

    const rendered = await server.request("/api/v1/internal/config", { headers: project.headers("admin") });
    const config = JSON.parse(rendered.body.config_string);
    expect(config.auth.otp.allowSignIn).toBe(true);
    expect(config.domains.allowLocalhost).toBe(false);
    expect(Object.values(config.domains.trustedDomains)).toEqual([
      { baseUrl: "https://app.acme.example", handlerPath: "/auth" },
    ]);

    const client = await server.request("/api/v1/projects/current", { headers: project.headers("client") });
    expect(client.body.display_name).toBe("Acme Inc");
    expect(client.body.config.magic_link_enabled).toBe(true);
    expect(client.body.config.enabled_oauth_providers).toEqual([{ id: "github" }]);
    expect(client.body.config).not.toHaveProperty("oauth_providers");
  });

  it("refuses bad updates with a 4xx and leaves the project unchanged", async () => {
    for (const body of [
      { display_name: "" },
      // PostgreSQL cannot store a NUL byte in text: a 400, not a failed query.
      { display_name: "Acme\u0000Inc" },
      { description: "Rockets\u0000" },
      { logo_url: "not a url" },
      { config: { domains: [{ domain: "not a domain", handler_path: "/handler" }] } },
      { config: { oauth_account_merge_strategy: "merge_everything" } },
      { config: { unknown_key: true } },
    ]) {
      const response = await server.request("/api/v1/internal/projects/current", {
        method: "PATCH",
        headers: project.headers("admin"),
        body,
      });
      expect(response.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(response.status, JSON.stringify(body)).toBeLessThan(500);
    }
    const after = await server.request("/api/v1/internal/projects/current", {
      headers: project.headers("admin"),
    });
    expect(after.body.display_name).toBe("Acme Inc");
    expect(after.body.config.domains).toHaveLength(1);
  });

  it("deletes a project, after which its keys no longer work", async () => {
    const doomed = await server.createProject("Doomed");
    const response = await server.request("/api/v1/internal/projects/current", {
      method: "DELETE",
      headers: doomed.headers("admin"),
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    const after = await server.request("/api/v1/projects/current", { headers: doomed.headers("client") });
    expect(after.headers.get("x-stack-known-error")).toBe("CURRENT_PROJECT_NOT_FOUND");
  });

  it("refuses to delete the internal project", async () => {
    const response = await server.request("/api/v1/internal/projects/current", {
      method: "DELETE",
      headers: server.internal.headers("admin"),
    });
    expect(response.status).toBe(400);
    const still = await server.request("/api/v1/projects/current", {
      headers: server.internal.headers("client"),
    });
    expect(still.status).toBe(200);
  });
});

describe("the seeded internal project", () => {
  it("accepts exactly the fixed seed keys", async () => {
    for (const accessType of ["client", "server", "admin"] as const) {
      const response = await server.request("/api/v1/projects/current", {
        headers: server.internal.headers(accessType),
      });
      expect(response.status).toBe(200);
      expect(response.body.id).toBe("internal");
    }
  });
});
