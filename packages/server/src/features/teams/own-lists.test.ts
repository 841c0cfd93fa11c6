/**
 * PROTOCOL-EXTRA.md §8.4: a client's lists of teams, permissions and OAuth providers are about its own user only,
 * asked for as the official SDK does (`user_id=me`); servers may leave the user out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, expectPlainError } from "../../testing/known-errors.ts";
import { type TeamsApi, teamsApi } from "./test-support.ts";

let server: TestServer;
let project: TestProject;
let api: TeamsApi;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Own lists");
  api = teamsApi(server, project);
});
afterAll(() => server.close());

const listRefusal = (noun: string) =>
  `Client can only list ${noun} for their own user. user_id must be either "me" or the ID of the current user`;

const lists = [
  { name: "teams", path: "/teams", text: listRefusal("teams") },
  { name: "team permissions", path: "/team-permissions", text: listRefusal("permissions") },
  { name: "project permissions", path: "/project-permissions", text: listRefusal("permissions") },
  {
    name: "OAuth providers",
    path: "/oauth-providers",
    text: "Client can only list OAuth providers for their own user.",
  },
];

describe.each(lists)("GET $path (client)", ({ path, text }) => {
  it("answers the caller's own list for user_id=me and for its own id", async () => {
    const ada = await api.user();
    expect((await api.get(`${path}?user_id=me`, ada.as)).status).toBe(200);
    expect((await api.get(`${path}?user_id=${ada.user.id}`, ada.as)).status).toBe(200);
  });

  it("refuses a missing user_id and another user's id with a plain 403", async () => {
    const ada = await api.user();
    const bob = await api.user();
    for (const query of ["", `?user_id=${bob.user.id}`]) {
      expectPlainError(await api.get(`${path}${query}`, ada.as), 403, text);
    }
  });

  it("answers CANNOT_GET_OWN_USER_WITHOUT_USER without a user", async () => {
    for (const query of ["", "?user_id=me"]) {
      expectKnownError(
        await api.get(`${path}${query}`, "client-anonymous"),
        400,
        "CANNOT_GET_OWN_USER_WITHOUT_USER",
      );
    }
  });
});

describe.each(lists)("GET $path (server)", ({ path }) => {
  it("may leave user_id out (the whole project) or name any user", async () => {
    const ada = await api.user();
    expect((await api.get(path, "server")).status).toBe(200);
    expect((await api.get(`${path}?user_id=${ada.user.id}`, "server")).status).toBe(200);
    expect((await api.get(path, "admin")).status).toBe(200);
  });
});

it("lists the whole project's teams for a server and only the caller's for a client", async () => {
  const ada = await api.user();
  const mine = await api.team("Mine", [ada.user.id]);
  const other = await api.team("Other");
  const all = (await api.get("/teams", "server")).body.items.map((t: { id: string }) => t.id);
  expect(all).toEqual(expect.arrayContaining([mine.id, other.id]));
  expect((await api.get("/teams?user_id=me", ada.as)).body.items.map((t: { id: string }) => t.id)).toEqual([
    mine.id,
  ]);
});
