import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { configOverrideApi } from "./test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Config");
});
afterAll(() => server.close());

const patch = (level: string, override: unknown) => configOverrideApi(server, project).patch(level, override);
const rendered = async () =>
  JSON.parse(
    (await server.request("/api/v1/internal/config", { headers: project.headers("admin") })).body
      .config_string,
  );

describe("config overrides", () => {
  it("renders defaults, then applies dot-notation patches per level", async () => {
    const before = await rendered();
    expect(before.teams.allowClientTeamCreation).toBe(false);
    expect((await patch("environment", { "teams.allowClientTeamCreation": true })).status).toBe(200);
    expect((await rendered()).teams.allowClientTeamCreation).toBe(true);

    const stored = await server.request("/api/v1/internal/config/override/environment", {
      headers: project.headers("admin"),
    });
    expect(JSON.parse(stored.body.config_string)).toEqual({ "teams.allowClientTeamCreation": true });
  });

  it("reads each level back as stored, in the dotted form it was written in", async () => {
    const target = await server.createProject("Stored overrides");
    const write = (level: string, method: string, body: unknown) =>
      server.request(`/api/v1/internal/config/override/${level}`, {
        method,
        headers: target.headers("admin"),
        body,
      });
    const read = async (level: string) => {
      const response = await server.request(`/api/v1/internal/config/override/${level}`, {
        headers: target.headers("admin"),
      });
      expect(response.status, response.text).toBe(200);
      return JSON.parse(response.body.config_string);
    };
    const github = { type: "github", isShared: false, clientId: "id", clientSecret: "secret" };

    const patched = { "teams.allowClientTeamCreation": true, "auth.oauth.providers.github": github };
    expect(
      (await write("environment", "PATCH", { config_override_string: JSON.stringify(patched) })).status,
    ).toBe(200);
    expect(await read("environment")).toEqual(patched);
    // A later patch replaces its own keys and what lies beneath them, and leaves the other keys as written.
    const next = { "auth.oauth.providers.github.clientId": "other", "users.allowClientUserDeletion": true };
    await write("environment", "PATCH", { config_override_string: JSON.stringify(next) });
    expect(await read("environment")).toEqual({
      "teams.allowClientTeamCreation": true,
      "auth.oauth.providers.github": { type: "github", isShared: false, clientSecret: "secret" },
      "auth.oauth.providers.github.clientId": "other",
      "users.allowClientUserDeletion": true,
    });
    const config = await server.request("/api/v1/internal/config", { headers: target.headers("admin") });
    expect(JSON.parse(config.body.config_string).auth.oauth.providers.github).toMatchObject({
      clientId: "other",
      clientSecret: "secret",
    });

    const replaced = { "domains.allowLocalhost": false, teams: { allowClientTeamCreation: true } };
    await write("project", "PUT", { config_string: JSON.stringify(replaced) });
    expect(await read("project")).toEqual(replaced);

    const reset = await server.request("/api/v1/internal/config/override/environment/reset-keys", {
      method: "POST",
      headers: target.headers("admin"),
      body: { keys: ["auth.oauth.providers.github.clientId", "teams"] },
    });
    expect(reset.status, reset.text).toBe(200);
    expect(await read("environment")).toEqual({
      "auth.oauth.providers.github": { type: "github", isShared: false, clientSecret: "secret" },
      "users.allowClientUserDeletion": true,
    });
  });

  it("lets the environment level win over the project level", async () => {
    await patch("project", { "users.allowClientUserDeletion": true });
    await patch("environment", { "users.allowClientUserDeletion": false });
    expect((await rendered()).users.allowClientUserDeletion).toBe(false);
  });

  it("replaces everything beneath a patched key", async () => {
    await patch("environment", {
      "auth.oauth.providers.github": {
        type: "github",
        isShared: true,
        allowSignIn: true,
        allowConnectedAccounts: true,
      },
    });
    expect(Object.keys((await rendered()).auth.oauth.providers)).toContain("github");
    await patch("environment", { "auth.oauth.providers": {} });
    expect((await rendered()).auth.oauth.providers).toEqual({});
  });

  it("accepts the legacy level-less PATCH as the environment level", async () => {
    const response = await server.request("/api/v1/internal/config/override", {
      method: "PATCH",
      headers: project.headers("admin"),
      body: { config_override_string: JSON.stringify({ "apiKeys.enabled.user": true }) },
    });
    expect(response.status).toBe(200);
    expect((await rendered()).apiKeys.enabled.user).toBe(true);
  });

  it("replaces a level with PUT and removes keys with reset-keys", async () => {
    const put = await server.request("/api/v1/internal/config/override/environment", {
      method: "PUT",
      headers: project.headers("admin"),
      body: { config_string: JSON.stringify({ "teams.createPersonalTeamOnSignUp": true }) },
    });
    expect(put.status).toBe(200);
    const config = await rendered();
    expect(config.teams.createPersonalTeamOnSignUp).toBe(true);
    expect(config.apiKeys.enabled.user).toBe(false);

    const reset = await server.request("/api/v1/internal/config/override/environment/reset-keys", {
      method: "POST",
      headers: project.headers("admin"),
      body: { keys: ["teams.createPersonalTeamOnSignUp"] },
    });
    expect(reset.status).toBe(200);
    expect((await rendered()).teams.createPersonalTeamOnSignUp).toBe(false);
  });

  it("needs a source to replace the branch level", async () => {
    const without = await server.request("/api/v1/internal/config/override/branch", {
      method: "PUT",
      headers: project.headers("admin"),
      body: { config_string: "{}" },
    });
    expect(without.status).toBe(400);
    const withSource = await server.request("/api/v1/internal/config/override/branch", {
      method: "PUT",
      headers: project.headers("admin"),
      body: { config_string: "{}", source: { type: "pushed-from-unknown" } },
    });
    expect(withSource.status).toBe(200);
    const source = await server.request("/api/v1/internal/config/source", {
      headers: project.headers("admin"),
    });
    expect(source.body.source).toEqual({ type: "pushed-from-unknown" });
  });

  it("answers bad overrides with a plain 400 and stores nothing", async () => {
    const before = await rendered();
    const cases = [
      "{not json",
      "[]",
      JSON.stringify({ "teams.allowClientTeamCreation": "yes" }),
      JSON.stringify({ "no such key": 1 }),
      JSON.stringify({ "auth.unknownThing": true }),
      JSON.stringify({ "domains.trustedDomains.a": { baseUrl: 5 } }),
    ];
    for (const text of cases) {
      const response = await server.request("/api/v1/internal/config/override/environment", {
        method: "PATCH",
        headers: project.headers("admin"),
        body: { config_override_string: text },
      });
      expect(response.status, text).toBe(400);
      expect(response.headers.get("content-type"), text).toContain("text/plain");
      expect(response.text.length).toBeGreaterThan(10);
    }
    expect(await rendered()).toEqual(before);
  });

  it("keeps concurrent patches of different keys", async () => {
    await Promise.all([
      patch("environment", { "onboarding.requireEmailVerification": true }),
      patch("environment", { "apiKeys.enabled.team": true }),
    ]);
    const config = await rendered();
    expect(config.onboarding.requireEmailVerification).toBe(true);
    expect(config.apiKeys.enabled.team).toBe(true);
  });
});
