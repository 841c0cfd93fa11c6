import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { createUser } from "../users/service.ts";
import {
  grantDefaultTeamPermissions,
  hasTeamPermission,
  listProjectPermissions,
  listTeamPermissions,
} from "./service.ts";
import { insertMember, insertTeam } from "./test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Default permissions");
});
afterAll(() => server.close());

const config = () => getRenderedConfig(server.deps, project.id);

describe("team default permissions", () => {
  it("gives a creator the teamCreator set and a joining member the teamMember set", async () => {
    const creator = await createSignedInUser(server, project.id);
    const member = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id, [creator.user.id, member.user.id]);
    const rendered = await config();
    const ref = { projectId: project.id, teamId, config: rendered };
    await grantDefaultTeamPermissions(server.deps.db, { ...ref, userId: creator.user.id, kind: "creator" });
    await grantDefaultTeamPermissions(server.deps.db, { ...ref, userId: member.user.id, kind: "member" });
    // Idempotent: a second call changes nothing.
    await grantDefaultTeamPermissions(server.deps.db, { ...ref, userId: member.user.id, kind: "member" });

    const direct = await listTeamPermissions(server.deps.db, { ...ref, recursive: false });
    expect(direct).toEqual(
      expect.arrayContaining([
        { id: "team_admin", user_id: creator.user.id, team_id: teamId },
        { id: "team_member", user_id: member.user.id, team_id: teamId },
      ]),
    );
    expect(direct).toHaveLength(2);

    const has = (userId: string, permissionId: string) =>
      hasTeamPermission(server.deps.db, { ...ref, userId, permissionId });
    expect(await has(creator.user.id, "$update_team")).toBe(true);
    expect(await has(creator.user.id, "$remove_members")).toBe(true);
    expect(await has(creator.user.id, "$delete_team")).toBe(true);
    expect(await has(member.user.id, "$read_members")).toBe(true);
    expect(await has(member.user.id, "$update_team")).toBe(false);
    expect(await has(member.user.id, "not_defined")).toBe(false);
  });

  it("follows the configured sets, including system permissions", async () => {
    const target = await server.createProject("Custom team defaults");
    await target.configure({
      // The project level defines team_admin and team_member here; null removes them at this level.
      "rbac.defaultPermissions.teamCreator": { team_admin: null, $delete_team: true, $manage_api_keys: true },
      "rbac.defaultPermissions.teamMember": { team_member: null },
    });
    const rendered = await getRenderedConfig(server.deps, target.id);
    const creator = await createSignedInUser(server, target.id);
    const member = await createSignedInUser(server, target.id);
    const teamId = await insertTeam(server.deps.db, target.id, [creator.user.id, member.user.id]);
    const ref = { projectId: target.id, teamId, config: rendered };
    await grantDefaultTeamPermissions(server.deps.db, { ...ref, userId: creator.user.id, kind: "creator" });
    await grantDefaultTeamPermissions(server.deps.db, { ...ref, userId: member.user.id, kind: "member" });
    const items = await listTeamPermissions(server.deps.db, { ...ref, recursive: true });
    expect(items.map((item) => [item.id, item.user_id])).toEqual([
      ["$delete_team", creator.user.id],
      ["$manage_api_keys", creator.user.id],
    ]);
  });

  it("answers false for non-members and members without grants", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server.deps.db, project.id);
    const rendered = await config();
    const ref = { projectId: project.id, teamId, userId: user.id, config: rendered };
    const canRead = () => hasTeamPermission(server.deps.db, { ...ref, permissionId: "$read_members" });
    expect(await canRead()).toBe(false);
    await insertMember(server.deps.db, project.id, teamId, user.id);
    expect(await canRead()).toBe(false);
    await grantDefaultTeamPermissions(server.deps.db, { ...ref, kind: "member" });
    expect(await canRead()).toBe(true);
  });
});

describe("sign-up default permissions", () => {
  it("grants the signUp set to every user created, through the user-creation hook", async () => {
    const target = await server.createProject("Sign-up defaults");
    for (const id of ["reports", "beta_access"]) {
      const response = await server.request("/api/v1/project-permission-definitions", {
        method: "POST",
        headers: target.headers("admin"),
        body: { id, ...(id === "beta_access" ? { contained_permission_ids: ["reports"] } : {}) },
      });
      expect(response.status).toBe(201);
    }
    await target.configure({ "rbac.defaultPermissions.signUp": { beta_access: true } });

    const rendered = await getRenderedConfig(server.deps, target.id);
    const user = await createUser(
      server.deps.db,
      target.id,
      rendered,
      { primaryEmail: "new@example.com" },
      server.deps.hooks,
    );
    const items = await listProjectPermissions(server.deps.db, {
      projectId: target.id,
      config: rendered,
      userId: user.id,
      recursive: true,
    });
    expect(items).toEqual([
      { id: "beta_access", user_id: user.id },
      { id: "reports", user_id: user.id },
    ]);

    // A project with an empty set grants nothing.
    const plain = await createUser(server.deps.db, project.id, await config(), {}, server.deps.hooks);
    expect(
      await listProjectPermissions(server.deps.db, {
        projectId: project.id,
        config: await config(),
        userId: plain.id,
        recursive: true,
      }),
    ).toEqual([]);
  });

  it("makes a user the creator of the personal team created at sign-up", async () => {
    const target = await server.createProject("Personal teams");
    await target.configure({ "teams.createPersonalTeamOnSignUp": true });
    const rendered = await getRenderedConfig(server.deps, target.id);
    const user = await createUser(
      server.deps.db,
      target.id,
      rendered,
      { displayName: "Ada" },
      server.deps.hooks,
    );
    expect(user.selectedTeamId).not.toBeNull();
    const items = await listTeamPermissions(server.deps.db, {
      projectId: target.id,
      config: rendered,
      teamId: user.selectedTeamId!,
      recursive: false,
    });
    expect(items).toEqual([{ id: "team_admin", user_id: user.id, team_id: user.selectedTeamId }]);
  });
});
