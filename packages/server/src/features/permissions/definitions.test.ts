import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYSTEM_PERMISSION_IDS } from "../../config/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { insertTeam } from "./test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Permission definitions");
});
afterAll(() => server.close());

type Scope = "team" | "project";
const base = (scope: Scope) => `/api/v1/${scope}-permission-definitions`;

function define(scope: Scope, body: unknown, target: TestProject = project) {
  return server.request(base(scope), { method: "POST", headers: target.headers("admin"), body });
}
function patch(scope: Scope, id: string, body: unknown) {
  return server.request(`${base(scope)}/${encodeURIComponent(id)}`, {
    method: "PATCH",
    headers: project.headers("admin"),
    body,
  });
}
function remove(scope: Scope, id: string) {
  return server.request(`${base(scope)}/${encodeURIComponent(id)}`, {
    method: "DELETE",
    headers: project.headers("admin"),
  });
}
async function list(scope: Scope, target: TestProject = project) {
  const response = await server.request(base(scope), { headers: target.headers("admin") });
  expect(response.status).toBe(200);
  return response.body.items as { id: string; description?: string; contained_permission_ids: string[] }[];
}
async function renderedRbac() {
  const response = await server.request("/api/v1/internal/config", { headers: project.headers("admin") });
  return JSON.parse(response.body.config_string).rbac;
}

describe("listing definitions", () => {
  it("lists a new project's team permissions with the read-only system permissions, sorted", async () => {
    const items = await list("team");
    const ids = items.map((item) => item.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining(["team_admin", "team_member", ...SYSTEM_PERMISSION_IDS]));
    expect(items.find((item) => item.id === "team_member")).toEqual({
      id: "team_member",
      description: "Default permission for team members",
      contained_permission_ids: ["$invite_members", "$read_members"],
    });
    const system = items.find((item) => item.id === "$manage_api_keys")!;
    expect(system.contained_permission_ids).toEqual([]);
    expect(typeof system.description).toBe("string");
  });

  it("keeps project permissions apart and starts them empty", async () => {
    const fresh = await server.createProject("Fresh");
    expect(await list("project", fresh)).toEqual([]);
  });

  it("is admin only", async () => {
    for (const accessType of ["client", "server"] as const) {
      const response = await server.request(base("team"), { headers: project.headers(accessType) });
      expect(response.headers.get("x-stack-known-error")).toBe("INSUFFICIENT_ACCESS_TYPE");
    }
  });
});

describe("creating definitions", () => {
  it("creates with description and contained permissions (system ones included)", async () => {
    const response = await define("team", {
      id: "moderator",
      description: "Moderates",
      contained_permission_ids: ["team_member", "$remove_members"],
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: "moderator",
      description: "Moderates",
      contained_permission_ids: ["$remove_members", "team_member"],
    });
    expect((await list("team")).map((item) => item.id)).toContain("moderator");
    expect((await list("project")).map((item) => item.id)).not.toContain("moderator");
  });

  it("creates without description or contained permissions", async () => {
    const response = await define("project", { id: "billing:read" });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: "billing:read", contained_permission_ids: [] });
  });

  it("refuses an id that exists in either scope or is a system permission", async () => {
    await define("team", { id: "dup_team" });
    for (const scope of ["team", "project"] as const) {
      const response = await define(scope, { id: "dup_team" });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        code: "PERMISSION_ID_ALREADY_EXISTS",
        details: { permission_id: "dup_team" },
      });
    }
  });

  it("refuses unknown contained permissions and those of the other scope", async () => {
    await define("project", { id: "proj_only" });
    const cases: [Scope, string][] = [
      ["team", "nope"],
      ["team", "proj_only"],
      ["project", "team_member"],
      ["project", "$read_members"],
      ["project", "$not_a_system_permission"],
    ];
    for (const [scope, contained] of cases) {
      const response = await define(scope, { id: `x_${scope}`, contained_permission_ids: [contained] });
      expect(response.status, `${scope} containing ${contained}`).toBe(400);
      expect(response.body).toMatchObject({
        code: "CONTAINED_PERMISSION_NOT_FOUND",
        details: { permission_id: contained },
      });
    }
    expect((await list("team")).map((item) => item.id)).not.toContain("x_team");
  });

  it("refuses malformed bodies", async () => {
    const bodies = [
      {},
      { id: "Upper" },
      { id: "$custom" },
      { id: "has space" },
      { id: "" },
      { id: 12 },
      { id: "ok_id", description: 5 },
      // jsonb (where the config keeps definitions) cannot store a NUL byte: a 400, not a failed write.
      { id: "ok_id", description: "nul\u0000byte" },
      { id: "ok_id", contained_permission_ids: "team_member" },
      { id: "ok_id", contained_permission_ids: ["Bad-Id"] },
      { id: "ok_id", extra: true },
    ];
    for (const body of bodies) {
      const response = await define("team", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe("SCHEMA_ERROR");
    }
  });
});

describe("updating definitions", () => {
  it("changes description and contained permissions, allowing cycles", async () => {
    await define("team", { id: "cyc_a" });
    await define("team", { id: "cyc_b", contained_permission_ids: ["cyc_a"] });
    const response = await patch("team", "cyc_a", {
      description: "A",
      contained_permission_ids: ["cyc_b", "$read_members"],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: "cyc_a",
      description: "A",
      contained_permission_ids: ["$read_members", "cyc_b"],
    });
    const emptied = await patch("team", "cyc_a", { contained_permission_ids: [] });
    expect(emptied.body).toEqual({ id: "cyc_a", description: "A", contained_permission_ids: [] });
  });

  it("answers PERMISSION_NOT_FOUND, WRONG_PERMISSION_SCOPE and refuses system permissions", async () => {
    const unknown = await patch("team", "ghost", { description: "x" });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "PERMISSION_NOT_FOUND", details: { permission_id: "ghost" } });

    const wrongScope = await patch("project", "team_member", { description: "x" });
    expect(wrongScope.status).toBe(404);
    expect(wrongScope.body).toEqual(
      expect.objectContaining({
        code: "WRONG_PERMISSION_SCOPE",
        details: { permission_id: "team_member", expected_scope: "project", actual_scope: "team" },
      }),
    );
    const systemAsProject = await remove("project", "$update_team");
    expect(systemAsProject.body.code).toBe("WRONG_PERMISSION_SCOPE");

    const system = await patch("team", "$update_team", { description: "mine now" });
    expect(system.status).toBe(400);
    expect(system.text).toContain("system permission");
    expect((await remove("team", "$update_team")).status).toBe(400);

    const badContained = await patch("team", "team_admin", { contained_permission_ids: ["ghost"] });
    expect(badContained.body.code).toBe("CONTAINED_PERMISSION_NOT_FOUND");
    const badParam = await patch("team", "Not_Valid", { description: "x" });
    expect(badParam.body.code).toBe("SCHEMA_ERROR");
  });

  it("renames, carrying references in definitions, default sets and grants along", async () => {
    await define("team", { id: "reader", contained_permission_ids: ["$read_members"] });
    await define("team", { id: "writer", contained_permission_ids: ["reader"] });
    await patch("team", "reader", { contained_permission_ids: ["reader"] }); // self-reference follows too
    await project.configure({ "rbac.defaultPermissions.teamMember.reader": true });
    const { user } = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id, [user.id]);
    await server.request(`/api/v1/team-permissions/${teamId}/${user.id}/reader`, {
      method: "POST",
      headers: project.headers("server"),
    });

    const taken = await patch("team", "reader", { id: "writer" });
    expect(taken.body).toMatchObject({ code: "PERMISSION_ID_ALREADY_EXISTS" });

    const renamed = await patch("team", "reader", { id: "viewer", description: "Views" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      id: "viewer",
      description: "Views",
      contained_permission_ids: ["viewer"],
    });

    const rbac = await renderedRbac();
    expect(rbac.permissions.reader).toBeUndefined();
    expect(rbac.permissions.writer.containedPermissionIds).toEqual({ viewer: true });
    expect(rbac.defaultPermissions.teamMember).toEqual({ team_member: true, viewer: true });

    const grants = await server.request(`/api/v1/team-permissions?team_id=${teamId}&recursive=false`, {
      headers: project.headers("server"),
    });
    expect(grants.body.items.map((item: { id: string }) => item.id)).toEqual(["viewer"]);
  });
});

describe("deleting definitions", () => {
  it("removes the definition, its grants and every reference to it in one write", async () => {
    // team_member comes from the project-level override of a new project; deleting it must still work.
    const { user } = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id, [user.id]);
    await define("team", { id: "lead", contained_permission_ids: ["team_member", "$invite_members"] });
    for (const id of ["team_member", "lead"]) {
      await server.request(`/api/v1/team-permissions/${teamId}/${user.id}/${id}`, {
        method: "POST",
        headers: project.headers("server"),
      });
    }

    const response = await remove("team", "team_member");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });

    expect((await list("team")).map((item) => item.id)).not.toContain("team_member");
    const rbac = await renderedRbac();
    expect(rbac.permissions.lead.containedPermissionIds).toEqual({ $invite_members: true });
    expect(rbac.defaultPermissions.teamMember).not.toHaveProperty("team_member");

    const grants = await server.request(`/api/v1/team-permissions?team_id=${teamId}&recursive=false`, {
      headers: project.headers("server"),
    });
    expect(grants.body.items.map((item: { id: string }) => item.id)).toEqual(["lead"]);

    expect((await remove("team", "team_member")).body.code).toBe("PERMISSION_NOT_FOUND");

    // Defining the id again starts from nothing: the old grant does not come back.
    expect((await define("team", { id: "team_member" })).status).toBe(201);
    const after = await server.request(
      `/api/v1/team-permissions?team_id=${teamId}&permission_id=team_member&recursive=false`,
      { headers: project.headers("server") },
    );
    expect(after.body.items).toEqual([]);
  });

  it("removes project permissions from the sign-up set and other project permissions", async () => {
    await define("project", { id: "p_base" });
    await define("project", { id: "p_top", contained_permission_ids: ["p_base"] });
    await project.configure({ "rbac.defaultPermissions.signUp.p_base": true });
    expect((await remove("project", "p_base")).status).toBe(200);
    const rbac = await renderedRbac();
    expect(rbac.permissions.p_base).toBeUndefined();
    expect(rbac.permissions.p_top.containedPermissionIds).toEqual({});
    expect(rbac.defaultPermissions.signUp).toEqual({});
  });
});

describe("isolation", () => {
  it("keeps each project's definitions to itself", async () => {
    const other = await server.createProject("Other definitions");
    expect((await define("team", { id: "only_in_other" }, other)).status).toBe(201);
    expect((await list("team")).map((item) => item.id)).not.toContain("only_in_other");
    expect((await patch("team", "only_in_other", { description: "x" })).body.code).toBe(
      "PERMISSION_NOT_FOUND",
    );
    // The same id can exist independently in two projects.
    expect((await define("team", { id: "only_in_other" })).status).toBe(201);
  });
});
