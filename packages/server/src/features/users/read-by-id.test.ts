/** `GET /users/{id}` with the list's query parameters (PROTOCOL-EXTRA §8.8): accepted, ignored, never filtering. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { asUser, SERVER_VIEW_KEYS } from "./test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Read by id");
});
afterAll(() => server.close());

describe("GET /users/{id} with list parameters", () => {
  it("answers an anonymous user for include_anonymous=true, as a server app reads one", async () => {
    const { user } = await createSignedInUser(server, project.id, { isAnonymous: true });
    const response = await server.request(`/api/v1/users/${user.id}?include_anonymous=true`, {
      headers: project.headers("server"),
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(SERVER_VIEW_KEYS);
    expect(response.body).toMatchObject({ id: user.id, is_anonymous: true });
  });

  it("ignores a filter the user does not pass: a read by id never filters", async () => {
    const { user } = await createSignedInUser(server, project.id, {
      isAnonymous: true,
      restrictedByAdmin: true,
    });
    const response = await server.request(
      `/api/v1/users/${user.id}?include_anonymous=false&include_restricted=false&limit=1`,
      { headers: project.headers("server") },
    );
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: user.id, is_anonymous: true, restricted_by_admin: true });
  });

  it("still refuses a parameter the list does not know, and a bad value", async () => {
    const { user } = await createSignedInUser(server, project.id, {});
    const unknown = await server.request(`/api/v1/users/${user.id}?colour=blue`, {
      headers: project.headers("server"),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("SCHEMA_ERROR");
    const bad = await server.request(`/api/v1/users/${user.id}?include_anonymous=maybe`, {
      headers: project.headers("server"),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("SCHEMA_ERROR");
  });

  it("keeps /users/me free of query parameters", async () => {
    const { accessToken } = await createSignedInUser(server, project.id, {});
    const response = await server.request("/api/v1/users/me?include_anonymous=true", {
      headers: asUser(project, accessToken),
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("SCHEMA_ERROR");
  });
});
