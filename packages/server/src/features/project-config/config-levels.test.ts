/**
 * PROTOCOL-EXTRA.md §8.3: environment-only keys (domains, the email server, OAuth credentials, payments test mode…)
 * are refused at the branch level, project-only keys (`sourceOfTruth`, `project.*`) at branch and environment, each
 * with a plain 400 naming the key; nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectPlainError } from "../../testing/known-errors.ts";
import { configOverrideApi } from "./test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Config levels");
});
afterAll(() => server.close());

const patch = (level: string, override: unknown) => configOverrideApi(server, project).patch(level, override);
const put = (level: string, override: unknown) =>
  configOverrideApi(server, project).put(level, {
    config_string: JSON.stringify(override),
    source: { type: "pushed-from-unknown" },
  });
const stored = (level: string) => configOverrideApi(server, project).stored(level);

const dotted = (key: string, found = key) =>
  `The key "${key}" is not valid (nested object not found in schema: "${found}").`;

const ENVIRONMENT_ONLY: [Record<string, unknown>, string][] = [
  [{ "domains.allowLocalhost": false }, dotted("domains.allowLocalhost")],
  [{ domains: { allowLocalhost: false } }, "domains contains unknown properties: allowLocalhost"],
  [
    { "domains.trustedDomains.app": { baseUrl: "https://app.example.com", handlerPath: "/handler" } },
    dotted("domains.trustedDomains.app", "domains.trustedDomains"),
  ],
  [{ "emails.server": { isShared: true } }, dotted("emails.server")],
  [{ "payments.testMode": true }, dotted("payments.testMode")],
  [
    { "auth.oauth.providers.github.clientSecret": "secret" },
    dotted("auth.oauth.providers.github.clientSecret"),
  ],
  [
    { "auth.oauth.providers.github": { type: "github", isShared: false, clientId: "id" } },
    "auth.oauth.providers.github contains unknown properties: isShared, clientId",
  ],
];

describe("the branch level", () => {
  it.each(ENVIRONMENT_ONLY)("refuses environment-only %j with a plain 400", async (override, text) => {
    expectPlainError(await patch("branch", override), 400, text);
    expectPlainError(await put("branch", override), 400, text);
    expect(await stored("branch")).toEqual({});
  });

  it("accepts the same keys at the environment level", async () => {
    for (const [override] of ENVIRONMENT_ONLY) {
      const answer = await patch("environment", override);
      expect(answer.status, `${JSON.stringify(override)}: ${answer.text}`).toBe(200);
    }
  });

  it("accepts the rest, and an OAuth provider's type and switches", async () => {
    const override = {
      "teams.allowClientTeamCreation": true,
      "auth.oauth.providers.github": { type: "github", allowSignIn: true, allowConnectedAccounts: false },
      domains: {},
    };
    expect((await patch("branch", override)).status).toBe(200);
    expect(await stored("branch")).toEqual(override);
  });
});

describe("each level's own values", () => {
  it("refuses a wrong branch value that the environment level overrides, with the text a lone one gets", async () => {
    const layered = await server.createProject("Hidden branch value");
    const api = configOverrideApi(server, layered);
    const lone = await api.patch("branch", { "teams.allowClientTeamCreation": "yes" });
    expect(lone.status, lone.text).toBe(400);
    expect(lone.text).toContain("teams.allowClientTeamCreation");
    expect((await api.patch("environment", { "teams.allowClientTeamCreation": true })).status).toBe(200);
    expectPlainError(await api.patch("branch", { "teams.allowClientTeamCreation": "yes" }), 400, lone.text);
    expectPlainError(
      await api.put("branch", {
        config_string: JSON.stringify({ teams: { allowClientTeamCreation: "yes" } }),
        source: { type: "pushed-from-unknown" },
      }),
      400,
      lone.text,
    );
    expect(await api.stored("branch")).toEqual({});
    // A right value under the environment's is taken, and the environment's still wins.
    expect((await api.patch("branch", { "teams.allowClientTeamCreation": false })).status).toBe(200);
    expect(await api.stored("branch")).toEqual({ "teams.allowClientTeamCreation": false });
  });
});

describe("project-only keys", () => {
  it.each(["branch", "environment"])("are refused at the %s level", async (level) => {
    expectPlainError(
      await patch(level, { "project.requirePublishableClientKey": true }),
      400,
      dotted("project.requirePublishableClientKey", "project"),
    );
    expectPlainError(await patch(level, { sourceOfTruth: { type: "hosted" } }), 400, dotted("sourceOfTruth"));
  });

  it("are refused by the legacy level-less PATCH too (the environment level)", async () => {
    const answer = await server.request("/api/v1/internal/config/override", {
      method: "PATCH",
      headers: project.headers("admin"),
      body: { config_override_string: JSON.stringify({ project: { requirePublishableClientKey: true } }) },
    });
    expectPlainError(answer, 400, dotted("project", "project"));
  });
});
