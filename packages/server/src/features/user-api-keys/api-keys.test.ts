import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey, parseUserOrTeamApiKey } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { expireRows } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { insertMember, insertTeam } from "../permissions/test-support.ts";
import { userTeamApiKeys } from "./schema.ts";

let server: TestServer;
let project: TestProject;

function enableKeys(target: TestProject, user: boolean, team: boolean) {
  return target.configure({ "apiKeys.enabled": { user, team } });
}

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("API keys");
  await enableKeys(project, true, true);
});
afterAll(() => server.close());

type Headers = Record<string, string>;
const post = (path: string, headers: Headers, body: unknown) =>
  server.request(`/api/v1${path}`, { method: "POST", headers, body });
const get = (path: string, headers: Headers) => server.request(`/api/v1${path}`, { headers });
const patch = (path: string, headers: Headers, body: unknown) =>
  server.request(`/api/v1${path}`, { method: "PATCH", headers, body });

async function signedIn(target: TestProject = project) {
  const { user, accessToken } = await createSignedInUser(server, target.id);
  return { user, client: target.headers("client", { "x-stack-access-token": accessToken }) };
}

function createUserKey(headers: Headers, userId = "me", extra: Record<string, unknown> = {}) {
  return post("/user-api-keys", headers, {
    description: "laptop",
    expires_at_millis: null,
    user_id: userId,
    ...extra,
  });
}

describe("user API keys", () => {
  it("creates a key shown in full once, stored only as a hash and last four", async () => {
    const { user, client } = await signedIn();
    const expiresAt = Date.now() + 3_600_000;
    const created = await createUserKey(client, "me", { expires_at_millis: expiresAt });
    expect(created.status).toBe(200);
    const key: string = created.body.value;
    expect(parseUserOrTeamApiKey(key)).toMatchObject({ type: "user", isPublic: false, id: created.body.id });
    expect(key.startsWith("sk_")).toBe(true);
    expect(created.body).toMatchObject({
      description: "laptop",
      expires_at_millis: expiresAt,
      is_public: false,
      type: "user",
      user_id: user.id,
    });
    expect(created.body).not.toHaveProperty("manually_revoked_at_millis");
    expect(typeof created.body.created_at_millis).toBe("number");

    const [row] = await server.deps.db
      .select()
      .from(userTeamApiKeys)
      .where(eq(userTeamApiKeys.id, created.body.id));
    expect(row!.keyHash).toBe(hashApiKey(key));
    expect(row!.lastFour).toBe(key.slice(-4));
    expect(
      Object.values(row!).some((value) => typeof value === "string" && value.includes(key.slice(3, 40))),
    ).toBe(false);

    const read = await get(`/user-api-keys/${created.body.id}`, client);
    expect(read.status).toBe(200);
    expect(read.body.value).toEqual({ last_four: key.slice(-4) });
    const listed = await get("/user-api-keys?user_id=me", client);
    expect(listed.body).toEqual({ items: [read.body], is_paginated: false });
  });

  it("checks a key through every validity state", async () => {
    const { client } = await signedIn();
    const server_ = project.headers("server");
    const created = await createUserKey(client);
    const key: string = created.body.value;
    const check = (apiKey: string, type = "user") =>
      post(`/${type}-api-keys/check`, server_, { api_key: apiKey });

    const valid = await check(key);
    expect(valid.status).toBe(200);
    expect(valid.body).toMatchObject({ id: created.body.id, value: { last_four: key.slice(-4) } });

    const wrongType = await check(key, "team");
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toMatchObject({
      code: "WRONG_API_KEY_TYPE",
      details: { expected_type: "team", actual_type: "user" },
    });

    // Change the last character to a different one (the checksum is hex, so it may already be "0").
    const tampered = `${key.slice(0, -1)}${key.endsWith("0") ? "1" : "0"}`;
    for (const bogus of ["nope", tampered, key.toUpperCase()]) {
      const response = await check(bogus);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe("API_KEY_NOT_FOUND");
    }

    await expireRows(server, userTeamApiKeys, eq(userTeamApiKeys.id, created.body.id));
    const expired = await check(key);
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe("API_KEY_EXPIRED");

    const revoked = await patch(`/user-api-keys/${created.body.id}`, client, { revoked: true });
    expect(revoked.status).toBe(200);
    expect(typeof revoked.body.manually_revoked_at_millis).toBe("number");
    const afterRevoke = await check(key);
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.body.code).toBe("API_KEY_REVOKED");

    // Revocation is irreversible and keeps its first time.
    const again = await patch(`/user-api-keys/${created.body.id}`, client, {
      revoked: true,
      description: "old",
    });
    expect(again.body.manually_revoked_at_millis).toBe(revoked.body.manually_revoked_at_millis);
    expect(again.body.description).toBe("old");
    expect((await patch(`/user-api-keys/${created.body.id}`, client, { revoked: false })).status).toBe(400);

    const clientCheck = await post("/user-api-keys/check", client, { api_key: key });
    expect(clientCheck.body.code).toBe("INSUFFICIENT_ACCESS_TYPE");
  });

  it("creates public keys, which cannot be revoked", async () => {
    const { client } = await signedIn();
    const created = await createUserKey(client, "me", { is_public: true });
    expect(created.body.value.startsWith("pk_")).toBe(true);
    expect(created.body.is_public).toBe(true);
    const revoke = await patch(`/user-api-keys/${created.body.id}`, client, { revoked: true });
    expect(revoke.status).toBe(400);
    expect(revoke.body.code).toBe("PUBLIC_API_KEY_CANNOT_BE_REVOKED");
    expect((await patch(`/user-api-keys/${created.body.id}`, client, { description: "ok" })).status).toBe(
      200,
    );
  });

  it("keeps clients to their own keys", async () => {
    const me = await signedIn();
    const other = await signedIn();
    const theirs = await createUserKey(other.client);

    expect((await createUserKey(me.client, other.user.id)).status).toBe(403);
    expect((await get(`/user-api-keys?user_id=${other.user.id}`, me.client)).status).toBe(403);
    const read = await get(`/user-api-keys/${theirs.body.id}`, me.client);
    expect(read.status).toBe(403);
    expect((await patch(`/user-api-keys/${theirs.body.id}`, me.client, { revoked: true })).status).toBe(403);

    const anonymous = project.headers("client");
    expect((await createUserKey(anonymous)).body.code).toBe("CANNOT_GET_OWN_USER_WITHOUT_USER");
    expect((await get(`/user-api-keys/${theirs.body.id}`, anonymous)).body.code).toBe(
      "USER_AUTHENTICATION_REQUIRED",
    );
  });

  it("accepts the SDK's shapes: no expiry field, the owner repeated in the query, expiry updates", async () => {
    const { user, client } = await signedIn();
    const created = await post("/user-api-keys", client, { description: "no expiry", user_id: "me" });
    expect(created.status).toBe(200);
    expect(created.body).not.toHaveProperty("expires_at_millis");
    const id = created.body.id;

    expect((await get(`/user-api-keys/${id}?user_id=${user.id}`, client)).status).toBe(200);
    expect((await get(`/user-api-keys/${id}?user_id=me`, client)).status).toBe(200);
    const otherOwner = await get(
      `/user-api-keys/${id}?user_id=00000000-0000-4000-8000-000000000000`,
      project.headers("server"),
    );
    expect(otherOwner.body.code).toBe("API_KEY_NOT_FOUND");

    const expiresAt = Date.now() + 60_000;
    const updated = await patch(`/user-api-keys/${id}?user_id=${user.id}`, project.headers("server"), {
      expires_at_millis: expiresAt,
    });
    expect(updated.status).toBe(200);
    expect(updated.body.expires_at_millis).toBe(expiresAt);
    // A past time is taken, as the reference takes it (api-key-parity.test.ts).
    expect((await patch(`/user-api-keys/${id}`, client, { expires_at_millis: Date.now() - 1 })).status).toBe(
      200,
    );
    const cleared = await patch(`/user-api-keys/${id}`, client, { expires_at_millis: null });
    expect(cleared.body).not.toHaveProperty("expires_at_millis");
  });

  it("lets servers and admins manage any user's keys", async () => {
    const { user } = await signedIn();
    for (const accessType of ["server", "admin"] as const) {
      const headers = project.headers(accessType);
      const created = await createUserKey(headers, user.id);
      expect(created.status).toBe(200);
      expect(created.body.user_id).toBe(user.id);
      expect((await get(`/user-api-keys/${created.body.id}`, headers)).status).toBe(200);
    }
    const listed = await get(`/user-api-keys?user_id=${user.id}`, project.headers("server"));
    expect(listed.body.items).toHaveLength(2);
    const missing = await createUserKey(project.headers("server"), "00000000-0000-4000-8000-000000000000");
    expect(missing.body.code).toBe("USER_NOT_FOUND");
  });

  it("refuses both user_id and team_id, and other bad input", async () => {
    const { user, client } = await signedIn();
    const teamId = await insertTeam(server.deps.db, project.id, [user.id]);
    const both = await createUserKey(client, "me", { team_id: teamId });
    expect(both.status).toBe(400);
    expect(both.text).toContain("both user_id and team_id");
    const bothTeam = await post("/team-api-keys", project.headers("server"), {
      description: "x",
      expires_at_millis: null,
      team_id: teamId,
      user_id: user.id,
    });
    expect(bothTeam.status).toBe(400);
    expect(bothTeam.text).toContain("both user_id and team_id");
    expect((await get(`/user-api-keys?user_id=me&team_id=${teamId}`, client)).status).toBe(400);

    const bad = [
      { expires_at_millis: null, user_id: "me" },
      { description: "x", expires_at_millis: "soon", user_id: "me" },
      { description: "x", expires_at_millis: null },
      { description: "x", expires_at_millis: null, user_id: "someone" },
      { description: 1, expires_at_millis: null, user_id: "me" },
      // PostgreSQL text cannot hold a NUL byte: refused up front rather than a failed insert (500).
      { description: "nul\u0000byte", expires_at_millis: null, user_id: "me" },
      { description: "x", expires_at_millis: null, user_id: "me", is_public: "yes" },
      { description: "x", expires_at_millis: null, user_id: "me", extra: 1 },
    ];
    for (const body of bad) {
      const response = await post("/user-api-keys", client, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect((await get("/user-api-keys", client)).status).toBe(400);
    expect((await get("/user-api-keys/not-a-uuid", client)).status).toBe(400);
    expect((await get("/user-api-keys/00000000-0000-4000-8000-000000000000", client)).body.code).toBe(
      "API_KEY_NOT_FOUND",
    );
    expect((await post("/user-api-keys/check", project.headers("server"), {})).status).toBe(400);
  });

  it("creates a key with an expiry in the past, born expired, as the reference does", async () => {
    const { client } = await signedIn();
    const expiresAt = Date.now() - 1000;
    const created = await createUserKey(client, "me", { expires_at_millis: expiresAt });
    expect(created.status, created.text).toBe(200);
    expect(created.body.expires_at_millis).toBe(expiresAt);
    const checked = await post("/user-api-keys/check", project.headers("server"), {
      api_key: created.body.value,
    });
    expectKnownError(checked, 401, "API_KEY_EXPIRED");
  });
});

describe("team API keys", () => {
  async function teamWith(userId: string, permissions: string[]) {
    const teamId = await insertTeam(server.deps.db, project.id, [userId]);
    for (const permission of permissions) {
      const response = await post(
        `/team-permissions/${teamId}/${userId}/${permission}`,
        project.headers("server"),
        {},
      );
      expect(response.status).toBe(201);
    }
    return teamId;
  }
  const createTeamKey = (headers: Headers, teamId: string) =>
    post("/team-api-keys", headers, { description: "ci", expires_at_millis: null, team_id: teamId });

  it("lets a member with $manage_api_keys manage the team's keys", async () => {
    const { client, user } = await signedIn();
    const teamId = await teamWith(user.id, ["$manage_api_keys"]);
    const created = await createTeamKey(client, teamId);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ type: "team", team_id: teamId });
    expect(created.body).not.toHaveProperty("user_id");
    expect(parseUserOrTeamApiKey(created.body.value)?.type).toBe("team");

    expect((await get(`/team-api-keys?team_id=${teamId}`, client)).body.items).toHaveLength(1);
    expect((await get(`/team-api-keys/${created.body.id}`, client)).status).toBe(200);
    expect((await patch(`/team-api-keys/${created.body.id}`, client, { revoked: true })).status).toBe(200);

    const check = await post("/team-api-keys/check", project.headers("server"), {
      api_key: created.body.value,
    });
    expect(check.body.code).toBe("API_KEY_REVOKED");
    const asUser = await post("/user-api-keys/check", project.headers("server"), {
      api_key: created.body.value,
    });
    expect(asUser.body).toMatchObject({ details: { expected_type: "user", actual_type: "team" } });
    // A team key is not reachable through the user routes, nor the other way round.
    expect((await get(`/user-api-keys/${created.body.id}`, project.headers("server"))).status).toBe(404);
  });

  it("accepts $manage_api_keys through containment", async () => {
    await post("/team-permission-definitions", project.headers("admin"), {
      id: "key_admin",
      contained_permission_ids: ["$manage_api_keys"],
    });
    const { client, user } = await signedIn();
    const teamId = await teamWith(user.id, ["key_admin"]);
    expect((await createTeamKey(client, teamId)).status).toBe(200);
  });

  it("refuses members without the permission and non-members alike", async () => {
    const owner = await signedIn();
    const member = await signedIn();
    const outsider = await signedIn();
    const teamId = await teamWith(owner.user.id, ["$manage_api_keys"]);
    await post(`/team-permissions/${teamId}/${owner.user.id}/$read_members`, project.headers("server"), {});
    await insertMember(server.deps.db, project.id, teamId, member.user.id);
    const key = await createTeamKey(owner.client, teamId);

    for (const { client, user } of [member, outsider]) {
      const create = await createTeamKey(client, teamId);
      expect(create.status, user.id).toBe(404);
      expect(create.body.code).toBe("API_KEY_NOT_FOUND");
      expect((await get(`/team-api-keys?team_id=${teamId}`, client)).body.code).toBe("API_KEY_NOT_FOUND");
      expect((await get(`/team-api-keys/${key.body.id}`, client)).body.code).toBe("API_KEY_NOT_FOUND");
    }
  });

  it("lets servers manage any team's keys and reports unknown teams", async () => {
    const { user } = await signedIn();
    const teamId = await teamWith(user.id, []);
    expect((await createTeamKey(project.headers("server"), teamId)).status).toBe(200);
    const missing = await createTeamKey(project.headers("server"), "00000000-0000-4000-8000-000000000000");
    expect(missing.body.code).toBe("TEAM_NOT_FOUND");
    expect((await get("/team-api-keys", project.headers("server"))).status).toBe(400);
  });
});

describe("feature switch and isolation", () => {
  it("refuses every route while the key type is disabled", async () => {
    const target = await server.createProject("Keys off");
    const { client } = await signedIn(target);
    const create = await createUserKey(client);
    expect(create.status).toBe(400);
    expect(create.text).toContain("not enabled");
    expect((await get("/user-api-keys?user_id=me", client)).status).toBe(400);
    expect((await post("/user-api-keys/check", target.headers("server"), { api_key: "x" })).status).toBe(400);

    await enableKeys(target, true, false);
    expect((await createUserKey(client)).status).toBe(200);
    const team = await post("/team-api-keys", target.headers("server"), {
      description: "x",
      expires_at_millis: null,
      team_id: "00000000-0000-4000-8000-000000000000",
    });
    expect(team.text).toContain("Team API keys are not enabled");
  });

  it("never finds a key from another project", async () => {
    const target = await server.createProject("Other keys");
    await enableKeys(target, true, true);
    const { client } = await signedIn();
    const created = await createUserKey(client);
    const check = await post("/user-api-keys/check", target.headers("server"), {
      api_key: created.body.value,
    });
    expect(check.body.code).toBe("API_KEY_NOT_FOUND");
    expect((await get(`/user-api-keys/${created.body.id}`, target.headers("server"))).body.code).toBe(
      "API_KEY_NOT_FOUND",
    );
    expect(
      (await patch(`/user-api-keys/${created.body.id}`, target.headers("admin"), { revoked: true })).status,
    ).toBe(404);
  });
});
