/**
 * PROTOCOL-EXTRA.md §8.5, as the official SDK sends its requests (the owner repeated in the query, `user_id=me`):
 * another user's keys are a plain 403, a team's keys without `$manage_api_keys` are "not found", and a switched-off
 * key type answers its plain 400 before anything else.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, expectPlainError as expectPlain } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { insertTeam } from "../permissions/test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("API key access");
  await project.configure({ "apiKeys.enabled": { user: true, team: true } });
});
afterAll(() => server.close());

type Headers = Record<string, string>;
const call = (method: string, path: string, headers: Headers, body?: unknown) =>
  server.request(`/api/v1${path}`, { method, headers, ...(body === undefined ? {} : { body }) });

async function signedIn(target: TestProject = project) {
  const { user, accessToken } = await createSignedInUser(server, target.id);
  return { user, client: target.headers("client", { "x-stack-access-token": accessToken }) };
}

const newKey = { description: "laptop", expires_at_millis: null };
const OTHERS = "Client can only manage their own api keys";

describe("user API keys (client)", () => {
  it("answers a plain 403 for every operation on another user's keys", async () => {
    const ada = await signedIn();
    const bob = await signedIn();
    const bobs = await call("POST", "/user-api-keys", bob.client, { ...newKey, user_id: "me" });
    expect(bobs.status, bobs.text).toBe(200);
    const id = bobs.body.id as string;
    expectPlain(
      await call("POST", "/user-api-keys", ada.client, { ...newKey, user_id: bob.user.id }),
      403,
      OTHERS,
    );
    expectPlain(await call("GET", `/user-api-keys?user_id=${bob.user.id}`, ada.client), 403, OTHERS);
    expectPlain(await call("GET", `/user-api-keys/${id}?user_id=me`, ada.client), 403, OTHERS);
    expectPlain(
      await call("PATCH", `/user-api-keys/${id}?user_id=me`, ada.client, { revoked: true }),
      403,
      OTHERS,
    );
    // The owner still has it, unrevoked.
    const read = await call("GET", `/user-api-keys/${id}?user_id=me`, bob.client);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty("manually_revoked_at_millis");
  });

  it("needs a signed-in user", async () => {
    const bob = await signedIn();
    const id = (await call("POST", "/user-api-keys", bob.client, { ...newKey, user_id: "me" })).body.id;
    const anonymous = project.headers("client");
    expectKnownError(
      await call("GET", `/user-api-keys/${id}`, anonymous),
      401,
      "USER_AUTHENTICATION_REQUIRED",
    );
    expectKnownError(
      await call("GET", `/user-api-keys?user_id=${bob.user.id}`, anonymous),
      401,
      "USER_AUTHENTICATION_REQUIRED",
    );
  });
});

describe("team API keys (client)", () => {
  it("answers API_KEY_NOT_FOUND without $manage_api_keys, for members and non-members alike", async () => {
    const owner = await signedIn();
    const member = await signedIn();
    const outsider = await signedIn();
    const teamId = await insertTeam(server.deps.db, project.id, [owner.user.id, member.user.id]);
    const grant = await call(
      "POST",
      `/team-permissions/${teamId}/${owner.user.id}/$manage_api_keys`,
      project.headers("server"),
      {},
    );
    expect(grant.status).toBe(201);
    const key = await call("POST", "/team-api-keys", owner.client, { ...newKey, team_id: teamId });
    expect(key.status, key.text).toBe(200);
    for (const { client } of [member, outsider]) {
      for (const reply of [
        await call("POST", "/team-api-keys", client, { ...newKey, team_id: teamId }),
        await call("GET", `/team-api-keys?team_id=${teamId}`, client),
        await call("GET", `/team-api-keys/${key.body.id}?team_id=${teamId}`, client),
        await call("PATCH", `/team-api-keys/${key.body.id}?team_id=${teamId}`, client, { revoked: true }),
      ]) {
        expectKnownError(reply, 404, "API_KEY_NOT_FOUND");
      }
    }
    expect((await call("GET", `/team-api-keys?team_id=${teamId}`, owner.client)).body.items).toHaveLength(1);
  });
});

describe("order of the checks", () => {
  it("refuses a switched-off type first, with the reference's text", async () => {
    const target = await server.createProject("Keys off");
    const { client } = await signedIn(target);
    const anonymous = target.headers("client");
    const unknown = "00000000-0000-4000-8000-000000000000";
    expectPlain(
      await call("GET", `/user-api-keys/${unknown}`, anonymous),
      400,
      "User API keys are not enabled for this project.",
    );
    expectPlain(
      await call("POST", "/team-api-keys", client, { ...newKey, team_id: unknown }),
      400,
      "Team API keys are not enabled for this project.",
    );
  });

  it("needs the owner of a list, for servers too", async () => {
    const server_ = project.headers("server");
    const users = await call("GET", "/user-api-keys", server_);
    expectKnownError(users, 400, "SCHEMA_ERROR");
    expect(users.body.error).toBe("user_id is required for user API keys");
    expectKnownError(await call("GET", "/team-api-keys", server_), 400, "SCHEMA_ERROR");
  });

  it("lets a server check keys in the reference's order, unknown ones first", async () => {
    expectKnownError(
      await call("POST", "/user-api-keys/check", project.headers("server"), {
        api_key: "nothing-like-a-key",
      }),
      404,
      "API_KEY_NOT_FOUND",
    );
  });
});
