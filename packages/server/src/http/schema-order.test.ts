/**
 * One SCHEMA_ERROR lists every problem of a request in the reference's order: path parameters first, then the
 * query, then the body (issue 35 item 4). The plain-text checks the reference makes in its handlers (PROTOCOL-EXTRA
 * §8.7) answer only when the schema has nothing to say.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../testing/harness.ts";
import { expectKnownError, expectPlainError } from "../testing/known-errors.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Schema order");
});
afterAll(() => server.close());

describe("SCHEMA_ERROR", () => {
  it("lists path parameters, then the query, then the body", async () => {
    const response = await server.request("/api/v1/user-api-keys/not-a-uuid?team_id=nope", {
      method: "PATCH",
      headers: project.headers("server"),
      body: { description: 5 },
    });
    expectKnownError(response, 400, "SCHEMA_ERROR");
    const lines = (response.body.error as string).split("\n");
    expect(lines[0]).toBe("Request validation failed on PATCH /api/v1/user-api-keys/not-a-uuid:");
    expect(lines.slice(1).map((line) => line.split(/[.: ]/)[1])).toEqual(["params", "query", "body"]);
    expect(lines[1]).toContain("params.api_key_id");
    expect(lines[2]).toContain("query.team_id");
    expect(lines[3]).toContain("body.description");
  });

  it("wins over a plain-text check of the same request; alone, the plain text answers", async () => {
    const both = await server.request("/api/v1/users", {
      method: "POST",
      headers: project.headers("server"),
      body: { profile_image_url: "ftp://example.com/a.png", is_anonymous: "yes" },
    });
    expectKnownError(both, 400, "SCHEMA_ERROR");
    expect(both.body.error).toContain("body.is_anonymous");
    expect(both.body.error).not.toContain("profile_image_url");

    const alone = await server.request("/api/v1/users", {
      method: "POST",
      headers: project.headers("server"),
      body: { profile_image_url: "ftp://example.com/a.png" },
    });
    expectPlainError(alone, 400, "Invalid profile image URL");
  });
});
