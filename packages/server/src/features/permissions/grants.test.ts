import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { teamMembers } from "../teams/schema.ts";
import { insertTeam } from "./test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Permission grants");
  const define = (scope: string, id: string, contained: string[] = []) =>
    server.request(`/api/v1/${scope}-permission-definitions`, {
      method: "POST",
      headers: project.headers("admin"),
      body: { id, contained_permission_ids: contained },
    });
  // a → b → a is a cycle; c → b → a → $read_members is a chain.
  await define("team", "perm_a", ["$read_members"]);
  await define("team", "perm_b", ["perm_a"]);
  await server.request("/api/v1/team-permission-definitions/perm_a", {
    method: "PATCH",
    headers: project.headers("admin"),
    body: { contained_permission_ids: ["$read_members", "perm_b"] },
  });
  await define("team", "perm_c", ["perm_b"]);
  await define("project", "proj_read");
  await define("project", "proj_admin", ["proj_read"]);
});
afterAll(() => server.close());

type Item = { id: string; user_id: string; team_id?: string };
const ids = (items: Item[]) => items.map((item) => item.id);

function grantTeam(teamId: string, userId: string, permissionId: string, method = "POST", target = project) {
  return server.request(`/api/v1/team-permissions/${teamId}/${userId}/${encodeURIComponent(permissionId)}`, {
    method,
    headers: target.headers("server"),
    body: {},
  });
}
function grantProject(userId: string, permissionId: string, method = "POST") {
  return server.request(`/api/v1/project-permissions/${userId}/${encodeURIComponent(permissionId)}`, {
    method,
    headers: project.headers("server"),
  });
}
async function listTeam(query: string, headers = project.headers("server")) {
  const response = await server.request(`/api/v1/team-permissions?${query}`, { headers });
  expect(response.status, response.text).toBe(200);
  expect(response.body.is_paginated).toBe(false);
  return response.body.items as Item[];
}

describe("team permission grants", () => {
  it("grants (201, idempotent), lists recursively through cycles and chains, and revokes", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id, [user.id]);

    const granted = await grantTeam(teamId, user.id, "perm_c");
    expect(granted.status).toBe(201);
    expect(granted.body).toEqual({ id: "perm_c", user_id: user.id, team_id: teamId });
    expect((await grantTeam(teamId, user.id, "perm_c")).status).toBe(201);

    const recursive = await listTeam(`team_id=${teamId}&user_id=${user.id}&recursive=true`);
    expect(ids(recursive)).toEqual(["$read_members", "perm_a", "perm_b", "perm_c"]);
    expect(recursive[0]).toEqual({ id: "$read_members", user_id: user.id, team_id: teamId });
    // Without recursive=true (the reference platform's default), only the direct grant.
    expect(ids(await listTeam(`team_id=${teamId}&user_id=${user.id}`))).toEqual(["perm_c"]);
    expect(ids(await listTeam(`team_id=${teamId}&user_id=${user.id}&recursive=false`))).toEqual(["perm_c"]);

    // Checking one permission is a list filtered by id.
    expect(
      ids(await listTeam(`team_id=${teamId}&user_id=${user.id}&permission_id=perm_a&recursive=true`)),
    ).toEqual(["perm_a"]);
    expect(await listTeam(`team_id=${teamId}&user_id=${user.id}&permission_id=perm_a`)).toEqual([]);
    expect(
      await listTeam(`team_id=${teamId}&user_id=${user.id}&permission_id=$delete_team&recursive=true`),
    ).toEqual([]);

    const revoked = await grantTeam(teamId, user.id, "perm_c", "DELETE");
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true });
    expect(await listTeam(`team_id=${teamId}&user_id=${user.id}&recursive=true`)).toEqual([]);
    // Revoking what is not held changes nothing.
    expect((await grantTeam(teamId, user.id, "perm_c", "DELETE")).status).toBe(200);
  });

  it("lists a role, not the system permissions it contains, unless asked for recursive=true", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const created = await server.request("/api/v1/teams", {
      method: "POST",
      headers: project.headers("server"),
      body: { display_name: "Roles", creator_user_id: user.id },
    });
    expect(created.status, created.text).toBe(201);
    const client = project.headers("client", { "x-stack-access-token": accessToken });
    const query = `team_id=${created.body.id}&user_id=me`;
    // The creator's default grant is team_admin, which contains six system permissions (config/defaults.ts).
    expect(await listTeam(query, client)).toEqual([
      { id: "team_admin", user_id: user.id, team_id: created.body.id },
    ]);
    expect(ids(await listTeam(`${query}&recursive=false`, client))).toEqual(["team_admin"]);
    expect(ids(await listTeam(`${query}&recursive=true`, client))).toEqual([
      "$delete_team",
      "$invite_members",
      "$manage_api_keys",
      "$read_members",
      "$remove_members",
      "$update_team",
      "team_admin",
    ]);
  });

  it("terminates on a cycle granted from either end", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id, [user.id]);
    await grantTeam(teamId, user.id, "perm_a");
    const all = ["$read_members", "perm_a", "perm_b"];
    expect(ids(await listTeam(`team_id=${teamId}&recursive=true`))).toEqual(all);
    await grantTeam(teamId, user.id, "perm_b");
    expect(ids(await listTeam(`team_id=${teamId}&recursive=true`))).toEqual(all);
    expect(ids(await listTeam(`team_id=${teamId}`))).toEqual(["perm_a", "perm_b"]);
  });

  it("lists per member and per team, sorted", async () => {
    const one = await createSignedInUser(server, project.id);
    const two = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id, [one.user.id, two.user.id]);
    await grantTeam(teamId, one.user.id, "$invite_members");
    await grantTeam(teamId, two.user.id, "$update_team");
    const items = await listTeam(`team_id=${teamId}`);
    expect(items).toHaveLength(2);
    expect(items).toEqual(
      [...items].sort((a, b) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0)),
    );
    expect(ids(await listTeam(`user_id=${one.user.id}`))).toEqual(["$invite_members"]);
  });

  it("refuses non-members, unknown teams and permissions, and permissions of the other scope", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const outsider = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id, [user.id]);

    const notMember = await grantTeam(teamId, outsider.user.id, "perm_a");
    expect(notMember.status).toBe(404);
    expect(notMember.body).toMatchObject({
      code: "TEAM_MEMBERSHIP_NOT_FOUND",
      details: { team_id: teamId, user_id: outsider.user.id },
    });
    expect((await grantTeam(teamId, outsider.user.id, "perm_a", "DELETE")).body.code).toBe(
      "TEAM_MEMBERSHIP_NOT_FOUND",
    );

    const noTeam = await grantTeam("00000000-0000-4000-8000-000000000000", user.id, "perm_a");
    expect(noTeam.body).toMatchObject({ code: "TEAM_NOT_FOUND" });

    const unknown = await grantTeam(teamId, user.id, "ghost");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "PERMISSION_NOT_FOUND", details: { permission_id: "ghost" } });
    expect((await grantTeam(teamId, user.id, "$not_system")).body.code).toBe("PERMISSION_NOT_FOUND");

    const wrongScope = await grantTeam(teamId, user.id, "proj_read");
    expect(wrongScope.status).toBe(404);
    expect(wrongScope.body).toMatchObject({
      code: "WRONG_PERMISSION_SCOPE",
      details: { permission_id: "proj_read", expected_scope: "team", actual_scope: "project" },
    });
  });

  it("refuses malformed paths and queries", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id, [user.id]);
    for (const path of [
      `/api/v1/team-permissions/not-a-uuid/${user.id}/perm_a`,
      `/api/v1/team-permissions/${teamId}/not-a-uuid/perm_a`,
      `/api/v1/team-permissions/${teamId}/${user.id}/Bad%20Id`,
    ]) {
      const response = await server.request(path, { method: "POST", headers: project.headers("server") });
      expect(response.body.code, path).toBe("SCHEMA_ERROR");
    }
    for (const query of ["recursive=yes", "team_id=abc", "user_id=abc", "permission_id=UP", "other=1"]) {
      const response = await server.request(`/api/v1/team-permissions?${query}`, {
        headers: project.headers("server"),
      });
      expect(response.status, query).toBe(400);
    }
    const withBody = await server.request(`/api/v1/team-permissions/${teamId}/${user.id}/perm_a`, {
      method: "POST",
      headers: project.headers("server"),
      body: { unexpected: true },
    });
    expect(withBody.status).toBe(400);
  });

  it("drops grants with the membership", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id, [user.id]);
    await grantTeam(teamId, user.id, "perm_a");
    await server.deps.db
      .delete(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, user.id)));
    expect(await listTeam(`team_id=${teamId}`)).toEqual([]);
  });
});

describe("client access to team permissions", () => {
  it("lists only the signed-in user's own permissions and cannot grant", async () => {
    const me = await createSignedInUser(server, project.id);
    const other = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id, [me.user.id, other.user.id]);
    await grantTeam(teamId, me.user.id, "perm_a");
    await grantTeam(teamId, other.user.id, "perm_c");
    const client = project.headers("client", { "x-stack-access-token": me.accessToken });

    expect(ids(await listTeam(`team_id=${teamId}&user_id=me&recursive=true`, client))).toEqual([
      "$read_members",
      "perm_a",
      "perm_b",
    ]);
    expect(ids(await listTeam(`team_id=${teamId}&user_id=${me.user.id}`, client))).toEqual(["perm_a"]);
    // Without user_id a client is refused (PROTOCOL-EXTRA.md §8.4), as for another user's id below.
    const unnamed = await server.request(`/api/v1/team-permissions?team_id=${teamId}`, { headers: client });
    expect(unnamed.status).toBe(403);

    const others = await server.request(
      `/api/v1/team-permissions?team_id=${teamId}&user_id=${other.user.id}`,
      {
        headers: client,
      },
    );
    expect(others.status).toBe(403);

    const anonymous = await server.request(`/api/v1/team-permissions?team_id=${teamId}&user_id=me`, {
      headers: project.headers("client"),
    });
    expect(anonymous.body.code).toBe("CANNOT_GET_OWN_USER_WITHOUT_USER");

    const grant = await server.request(`/api/v1/team-permissions/${teamId}/me/perm_c`, {
      method: "POST",
      headers: client,
    });
    expect(grant.status).toBe(401);
    expect(grant.body.code).toBe("INSUFFICIENT_ACCESS_TYPE");
  });

  it("lets a server name `me` when it sends the user's token", async () => {
    const me = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id, [me.user.id]);
    const response = await server.request(`/api/v1/team-permissions/${teamId}/me/perm_a`, {
      method: "POST",
      headers: project.headers("server", { "x-stack-access-token": me.accessToken }),
    });
    expect(response.status).toBe(201);
    expect(response.body.user_id).toBe(me.user.id);
  });
});

describe("project permission grants", () => {
  it("grants, lists recursively and not, checks by id, and revokes", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const granted = await grantProject(user.id, "proj_admin");
    expect(granted.status).toBe(201);
    expect(granted.body).toEqual({ id: "proj_admin", user_id: user.id });

    const list = async (query: string, headers = project.headers("server")) => {
      const response = await server.request(`/api/v1/project-permissions?${query}`, { headers });
      expect(response.status, response.text).toBe(200);
      return response.body.items as Item[];
    };
    expect(await list(`user_id=${user.id}&recursive=true`)).toEqual([
      { id: "proj_admin", user_id: user.id },
      { id: "proj_read", user_id: user.id },
    ]);
    expect(ids(await list(`user_id=${user.id}`))).toEqual(["proj_admin"]);
    expect(ids(await list(`user_id=${user.id}&recursive=false`))).toEqual(["proj_admin"]);
    expect(ids(await list(`user_id=${user.id}&permission_id=proj_read&recursive=true`))).toEqual([
      "proj_read",
    ]);
    expect(await list(`user_id=${user.id}&permission_id=proj_read`)).toEqual([]);

    const client = project.headers("client", { "x-stack-access-token": accessToken });
    expect(ids(await list("user_id=me&recursive=true", client))).toEqual(["proj_admin", "proj_read"]);
    const other = await createSignedInUser(server, project.id);
    const forbidden = await server.request(`/api/v1/project-permissions?user_id=${other.user.id}`, {
      headers: client,
    });
    expect(forbidden.status).toBe(403);

    expect((await grantProject(user.id, "proj_admin", "DELETE")).body).toEqual({ success: true });
    expect(await list(`user_id=${user.id}`)).toEqual([]);
  });

  it("refuses unknown users, unknown permissions and team permissions", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const noUser = await grantProject("00000000-0000-4000-8000-000000000000", "proj_read");
    expect(noUser.status).toBe(404);
    expect(noUser.body.code).toBe("USER_NOT_FOUND");
    expect((await grantProject(user.id, "ghost")).body.code).toBe("PERMISSION_NOT_FOUND");
    for (const id of ["perm_a", "$read_members"]) {
      const response = await grantProject(user.id, id);
      expect(response.body).toMatchObject({
        code: "WRONG_PERMISSION_SCOPE",
        details: { permission_id: id, expected_scope: "project", actual_scope: "team" },
      });
    }
  });
});

describe("isolation between projects", () => {
  it("never reaches another project's teams, users or grants", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id, [user.id]);
    await grantTeam(teamId, user.id, "$update_team");
    await grantProject(user.id, "proj_read");

    const other = await server.createProject("Other grants");
    const teamList = await server.request(`/api/v1/team-permissions?team_id=${teamId}`, {
      headers: other.headers("server"),
    });
    expect(teamList.body.items).toEqual([]);
    const projectList = await server.request(`/api/v1/project-permissions?user_id=${user.id}`, {
      headers: other.headers("server"),
    });
    expect(projectList.body.items).toEqual([]);

    expect((await grantTeam(teamId, user.id, "$update_team", "POST", other)).body.code).toBe(
      "TEAM_NOT_FOUND",
    );
    expect((await grantTeam(teamId, user.id, "$update_team", "DELETE", other)).body.code).toBe(
      "TEAM_NOT_FOUND",
    );
    const projectGrant = await server.request(`/api/v1/project-permissions/${user.id}/team_member`, {
      method: "POST",
      headers: other.headers("server"),
    });
    expect(projectGrant.body.code).toBe("WRONG_PERMISSION_SCOPE");
    expect(ids(await listTeam(`team_id=${teamId}`))).toEqual(["$update_team"]);
  });
});
