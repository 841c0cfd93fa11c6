/**
 * Legacy list settings written through `PATCH /internal/projects/current` replace what the project has, whichever
 * level set it: the project level (config API, seeds) as well as earlier legacy updates on the environment level.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../testing/harness.ts";
import { expectKnownError } from "../testing/known-errors.ts";
import { patchLegacyConfig } from "./test-support.ts";

let server: TestServer;

beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

const patchLegacy = async (project: TestProject, config: unknown) =>
  (await patchLegacyConfig(server, project, config)).config;

async function legacyView(project: TestProject) {
  const response = await server.request("/api/v1/internal/projects/current", {
    headers: project.headers("admin"),
  });
  expect(response.status, response.text).toBe(200);
  return response.body.config;
}

async function rendered(project: TestProject) {
  const response = await server.request("/api/v1/internal/config", { headers: project.headers("admin") });
  expect(response.status, response.text).toBe(200);
  return JSON.parse(response.body.config_string);
}

describe("legacy domains", () => {
  it("replace the list of an earlier legacy update", async () => {
    const project = await server.createProject("Domains");
    await patchLegacy(project, {
      domains: [
        { domain: "https://a.example.com" },
        { domain: "https://b.example.com", handler_path: "/auth" },
      ],
    });
    const after = await patchLegacy(project, { domains: [{ domain: "https://a.example.com" }] });
    expect(after.domains).toEqual([{ domain: "https://a.example.com", handler_path: "/handler" }]);
    expect((await legacyView(project)).domains).toEqual(after.domains);
  });

  it("replace domains set on the project level, and an empty list removes them all", async () => {
    const project = await server.createProject("Project-level domains");
    await project.configure(
      {
        "domains.trustedDomains.main": { baseUrl: "https://old.example.com", handlerPath: "/handler" },
        "domains.trustedDomains.other": { baseUrl: "https://a.example.com", handlerPath: "/old" },
      },
      "project",
    );
    const after = await patchLegacy(project, { domains: [{ domain: "https://a.example.com" }] });
    expect(after.domains).toEqual([{ domain: "https://a.example.com", handler_path: "/handler" }]);
    expect(Object.values((await rendered(project)).domains.trustedDomains)).toEqual([
      { baseUrl: "https://a.example.com", handlerPath: "/handler" },
    ]);

    expect((await patchLegacy(project, { domains: [] })).domains).toEqual([]);
    expect((await rendered(project)).domains.trustedDomains).toEqual({});
  });
});

describe("legacy oauth_providers", () => {
  it("replace the providers of an earlier legacy update", async () => {
    const project = await server.createProject("Providers");
    await patchLegacy(project, {
      oauth_providers: [
        { id: "github", type: "standard", client_id: "gh-id", client_secret: "gh-secret" },
        { id: "google", type: "shared" },
      ],
    });
    const after = await patchLegacy(project, { oauth_providers: [{ id: "google", type: "shared" }] });
    expect(after.oauth_providers).toEqual([{ provider_config_id: "google", id: "google", type: "shared" }]);
    expect(after.enabled_oauth_providers).toEqual([{ id: "google" }]);
  });

  it("replace providers set on the project level, down to the fields of a provider that stays", async () => {
    const project = await server.createProject("Project-level providers");
    await project.configure(
      {
        "auth.oauth.providers.github": {
          type: "github",
          isShared: false,
          clientId: "old-id",
          clientSecret: "old-secret",
          allowSignIn: true,
          allowConnectedAccounts: true,
        },
        "auth.oauth.providers.discord": { type: "discord", isShared: true, allowSignIn: true },
      },
      "project",
    );
    const after = await patchLegacy(project, {
      oauth_providers: [{ id: "github", type: "standard", client_id: "new-id" }],
    });
    expect(after.oauth_providers).toEqual([
      { provider_config_id: "github", id: "github", type: "standard", client_id: "new-id" },
    ]);
    expect(after.enabled_oauth_providers).toEqual([{ id: "github" }]);
    const providers = (await rendered(project)).auth.oauth.providers;
    expect(Object.keys(providers)).toEqual(["github"]);
    expect(providers.github).not.toHaveProperty("clientSecret");

    expect((await patchLegacy(project, { oauth_providers: [] })).oauth_providers).toEqual([]);
    expect((await rendered(project)).auth.oauth.providers).toEqual({});
  });
});

describe("legacy oauth_providers that name no provider", () => {
  it("answer INVALID_SHARED_OAUTH_PROVIDER_ID or INVALID_STANDARD_OAUTH_PROVIDER_ID and change nothing", async () => {
    const project = await server.createProject("Unknown providers");
    await patchLegacy(project, { oauth_providers: [{ id: "google", type: "shared" }] });
    const cases = [
      [{ id: "myspace", type: "shared" }, "INVALID_SHARED_OAUTH_PROVIDER_ID"],
      // The generic OpenID Connect provider is a type of its own, but has no shared keys.
      [{ id: "custom_oidc", type: "shared" }, "INVALID_SHARED_OAUTH_PROVIDER_ID"],
      [
        { id: "myspace", type: "standard", client_id: "a", client_secret: "b" },
        "INVALID_STANDARD_OAUTH_PROVIDER_ID",
      ],
    ] as const;
    for (const [provider, code] of cases) {
      // As the admin SDK sends `project.update({ config: { oauthProviders } })`.
      const response = await server.request("/api/v1/internal/projects/current", {
        method: "PATCH",
        headers: project.headers("admin"),
        body: { config: { oauth_providers: [{ id: "google", type: "shared" }, provider] } },
      });
      expectKnownError(response, 400, code, { provider_id: provider.id });
      expect(response.body.error).toContain(provider.id);
    }
    expect((await legacyView(project)).oauth_providers).toEqual([
      { provider_config_id: "google", id: "google", type: "shared" },
    ]);
  });
});

describe("legacy email_config", () => {
  const standard = {
    type: "standard",
    host: "smtp.new.example.com",
    port: 587,
    sender_email: "noreply@new.example.com",
  } as const;

  it("replaces the email server set on the project level, leaving none of its other fields", async () => {
    const project = await server.createProject("Project-level email");
    await project.configure(
      {
        "emails.server": {
          isShared: false,
          provider: "smtp",
          host: "smtp.old.example.com",
          port: 25,
          username: "old-user",
          password: "old-password",
          senderName: "Old",
          senderEmail: "noreply@old.example.com",
        },
      },
      "project",
    );
    const after = await patchLegacy(project, { email_config: standard });
    expect(after.email_config).toEqual(standard);

    const shared = await patchLegacy(project, { email_config: { type: "shared" } });
    expect(shared.email_config).toEqual({ type: "shared" });
    const emailServer = (await rendered(project)).emails.server;
    expect(emailServer.isShared).toBe(true);
    for (const field of ["host", "port", "username", "password", "senderName", "senderEmail"]) {
      expect(emailServer, field).not.toHaveProperty(field);
    }
  });

  it("replaces the settings of an earlier legacy update", async () => {
    const project = await server.createProject("Email");
    await patchLegacy(project, {
      email_config: { ...standard, username: "mailer", password: "secret", sender_name: "Acme" },
    });
    expect((await patchLegacy(project, { email_config: standard })).email_config).toEqual(standard);
  });
});
