/**
 * PROTOCOL-EXTRA.md §8.6: how the config override routes refuse, sent as the SDK's `updateConfigOverride` and the
 * CLI send them. Server keys manage the branch level only (plain 403 elsewhere); a bad level is a SCHEMA_ERROR;
 * every refused override is a plain-text 400 naming the key, the value or the field at fault, and stores nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, expectPlainError } from "../../testing/known-errors.ts";
import { configOverrideApi } from "./test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Config errors");
});
afterAll(() => server.close());

const api = () => configOverrideApi(server, project);
const read = (level: string, access?: "server" | "admin") => api().read(level, access);
const patch = (level: string, text: string, access?: "server" | "admin") =>
  api().patchText(level, text, access);
const put = (level: string, body: Record<string, unknown>, access?: "server" | "admin") =>
  api().put(level, body, access);

const SERVER_LEVEL_TEXT = "Server access can only manage branch config overrides.";

describe("server access", () => {
  it("reads and writes the branch level", async () => {
    const written = await patch(
      "branch",
      JSON.stringify({ "teams.allowClientTeamCreation": true }),
      "server",
    );
    expect(written.status, written.text).toBe(200);
    expect(written.body).toEqual({ success: true });
    const stored = await read("branch", "server");
    expect(stored.status, stored.text).toBe(200);
    expect(JSON.parse(stored.body.config_string)).toEqual({ "teams.allowClientTeamCreation": true });
  });

  it("is a plain 403 at the project and environment levels, for reads, patches and replacements", async () => {
    const before = [await read("project"), await read("environment")].map((r) => r.body.config_string);
    for (const level of ["project", "environment"]) {
      expectPlainError(await read(level, "server"), 403, SERVER_LEVEL_TEXT);
      expectPlainError(await patch(level, "{}", "server"), 403, SERVER_LEVEL_TEXT);
      expectPlainError(await put(level, { config_string: "{}" }, "server"), 403, SERVER_LEVEL_TEXT);
    }
    expect([await read("project"), await read("environment")].map((r) => r.body.config_string)).toEqual(
      before,
    );
  });

  it("cannot reset keys, which is for admins", async () => {
    const response = await server.request("/api/v1/internal/config/override/branch/reset-keys", {
      method: "POST",
      headers: project.headers("server"),
      body: { keys: ["teams"] },
    });
    expectKnownError(response, 401, "INSUFFICIENT_ACCESS_TYPE");
  });
});

describe("a level that does not exist", () => {
  it("is a SCHEMA_ERROR naming params.level and the levels there are, for admins and servers", async () => {
    for (const access of ["admin", "server"] as const) {
      for (const response of [
        await read("production", access),
        await patch("production", "{}", access),
        await put("production", { config_string: "{}" }, access),
      ]) {
        expectKnownError(response, 400, "SCHEMA_ERROR");
        expect(response.body.error).toMatch(/params\.level/);
        expect(response.body.error).toMatch(/project.*branch.*environment/);
      }
    }
  });
});

describe("a refused override", () => {
  it.each([
    ["bad JSON", "{not json", /JSON/],
    ["null", "null", /object/],
    ["a string", '"text"', /object/],
    ["an array", "[1]", /object/],
    ["an unknown dotted key", JSON.stringify({ "teams.foo": true }), /teams\.foo/],
    ["unknown nested keys", JSON.stringify({ teams: { foo: 1, bar: 2 } }), /teams\.foo[\s\S]*teams\.bar/],
    ["a key outside the format", JSON.stringify({ "-x": 1 }), /-x/],
    [
      "a wrong value",
      JSON.stringify({ "teams.allowClientTeamCreation": "yes" }),
      /allowClientTeamCreation[\s\S]*"yes"/,
    ],
  ])("%s is a plain 400 naming what is wrong, and nothing is stored", async (_label, text, names) => {
    const before = (await read("branch")).body.config_string;
    const response = await patch("branch", text);
    expect(response.status, response.text).toBe(400);
    expect(response.headers.get("content-type")).toContain("text/plain");
    expect(response.headers.get("x-stack-known-error")).toBeNull();
    expect(response.text).toMatch(names);
    expect((await read("branch")).body.config_string).toBe(before);
  });

  it("replacing the branch level: a bad config is reported before the missing source, then the source", async () => {
    const badConfig = await put("branch", { config_string: JSON.stringify({ "teams.foo": true }) });
    expect(badConfig.status).toBe(400);
    expect(badConfig.text).toMatch(/teams\.foo/);
    const noSource = await put("branch", { config_string: "{}" });
    expect(noSource.status).toBe(400);
    expect(noSource.headers.get("content-type")).toContain("text/plain");
    expect(noSource.text).toMatch(/source/);
  });
});
