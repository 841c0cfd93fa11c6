/**
 * Every change the protocol names as an event writes it, with the protocol's payload, in the change's own
 * transaction (PROTOCOL-EXTRA §3.1): driven through the API, read from the event log.
 */
import { and, asc, desc, eq, gt } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { events } from "./schema.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Events");
  await project.configure({ "rbac.permissions.billing": { scope: "project" } }, "project");
});
afterAll(() => server.close());

const api = (method: string, path: string, body?: unknown) =>
  server.request(`/api/v1${path}`, { method, headers: project.headers("server"), body });

/** Runs `change` and returns the events it wrote, in the order they were written, as `[type, data]`. */
async function eventsOf(change: () => Promise<unknown>): Promise<[string, Record<string, unknown>][]> {
  const [last] = await server.deps.db
    .select({ seq: events.seq })
    .from(events)
    .where(eq(events.projectId, project.id))
    .orderBy(desc(events.seq))
    .limit(1);
  await change();
  const rows = await server.deps.db
    .select()
    .from(events)
    .where(and(eq(events.projectId, project.id), gt(events.seq, last?.seq ?? 0)))
    .orderBy(asc(events.seq));
  return rows.map((row) => [row.type, row.data as Record<string, unknown>]);
}

describe("the event log", () => {
  it("writes user.created with the server user read, and user.updated with the user after the change", async () => {
    let userId = "";
    const created = await eventsOf(async () => {
      const response = await api("POST", "/users", {
        primary_email: "ada@events.example",
        display_name: "Ada",
        server_metadata: { plan: "pro" },
      });
      expect(response.status).toBe(201);
      userId = response.body.id;
    });
    expect(created.map(([type]) => type)).toEqual(["user.created"]);
    expect(created[0]![1]).toMatchObject({
      id: userId,
      display_name: "Ada",
      primary_email: "ada@events.example",
      server_metadata: { plan: "pro" },
    });

    const updated = await eventsOf(() => api("PATCH", `/users/${userId}`, { display_name: "Ada L." }));
    expect(updated).toEqual([
      ["user.updated", expect.objectContaining({ id: userId, display_name: "Ada L." })],
    ]);
  });

  it("writes nothing for a change that failed", async () => {
    await api("POST", "/users", { primary_email: "taken@events.example" });
    const none = await eventsOf(async () => {
      const refused = await api("POST", "/users", { primary_email: "taken@events.example" });
      expect(refused.body.code).toBe("USER_EMAIL_ALREADY_EXISTS");
    });
    expect(none).toEqual([]);
  });

  it("writes team, membership and permission events in the protocol's order", async () => {
    const owner = (await api("POST", "/users", { primary_email: "owner@events.example" })).body.id as string;
    const member = (await api("POST", "/users", { primary_email: "member@events.example" })).body
      .id as string;
    let teamId = "";
    const createdTeam = await eventsOf(async () => {
      const response = await api("POST", "/teams", { display_name: "Core", creator_user_id: owner });
      teamId = response.body.id;
    });
    // The creator's membership sends no event; their default grant does.
    expect(createdTeam).toEqual([
      ["team.created", expect.objectContaining({ id: teamId, display_name: "Core" })],
      ["team_permission.created", { id: "team_admin", team_id: teamId, user_id: owner }],
    ]);

    expect(await eventsOf(() => api("PATCH", `/teams/${teamId}`, { display_name: "Core team" }))).toEqual([
      ["team.updated", expect.objectContaining({ id: teamId, display_name: "Core team" })],
    ]);
    expect(await eventsOf(() => api("POST", `/team-memberships/${teamId}/${member}`, {}))).toEqual([
      ["team_membership.created", { team_id: teamId, user_id: member }],
      ["team_permission.created", { id: "team_member", team_id: teamId, user_id: member }],
    ]);
    // Adding a member twice changes nothing, so it says nothing.
    expect(await eventsOf(() => api("POST", `/team-memberships/${teamId}/${member}`, {}))).toEqual([]);
    expect(await eventsOf(() => api("POST", `/team-permissions/${teamId}/${member}/team_admin`, {}))).toEqual(
      [["team_permission.created", { id: "team_admin", team_id: teamId, user_id: member }]],
    );
    expect(await eventsOf(() => api("DELETE", `/team-permissions/${teamId}/${member}/team_admin`))).toEqual([
      ["team_permission.deleted", { id: "team_admin", team_id: teamId, user_id: member }],
    ]);
    expect(await eventsOf(() => api("POST", `/project-permissions/${member}/billing`, {}))).toEqual([
      ["project_permission.created", { id: "billing", user_id: member }],
    ]);
    expect(await eventsOf(() => api("DELETE", `/project-permissions/${member}/billing`))).toEqual([
      ["project_permission.deleted", { id: "billing", user_id: member }],
    ]);
    expect(await eventsOf(() => api("DELETE", `/team-memberships/${teamId}/${member}`))).toEqual([
      ["team_membership.deleted", { team_id: teamId, user_id: member }],
    ]);

    // Deleting a user: one team_membership.deleted per team, then user.deleted naming the teams.
    expect(await eventsOf(() => api("DELETE", `/users/${owner}`))).toEqual([
      ["team_membership.deleted", { team_id: teamId, user_id: owner }],
      ["user.deleted", { id: owner, teams: [{ id: teamId }] }],
    ]);
    expect(await eventsOf(() => api("DELETE", `/teams/${teamId}`))).toEqual([
      ["team.deleted", { id: teamId }],
    ]);
  });

  it("writes team.created for a personal team at sign-up, before user.created", async () => {
    await project.configure({ "teams.createPersonalTeamOnSignUp": true });
    await project.configure({ "auth.allowSignUp": true, "auth.password.allowSignIn": true });
    const signUp = await eventsOf(() =>
      server.request("/api/v1/auth/password/sign-up", {
        method: "POST",
        headers: project.headers("client"),
        body: { email: "grace@events.example", password: "a long password 123" },
      }),
    );
    // The personal team, the creator's default grant in it, then the user.
    expect(signUp.map(([type]) => type)).toEqual(["team.created", "team_permission.created", "user.created"]);
    expect(signUp[2]![1]).toMatchObject({
      primary_email: "grace@events.example",
      selected_team_id: signUp[0]![1].id,
    });
    await project.configure({ "teams.createPersonalTeamOnSignUp": false });
  });

  it("writes user.updated, not user.created, when an anonymous user signs up for real", async () => {
    await project.configure({ "auth.allowSignUp": true, "auth.password.allowSignIn": true });
    const anonymous = await server.request("/api/v1/auth/anonymous/sign-up", {
      method: "POST",
      headers: project.headers("client"),
      body: {},
    });
    expect(anonymous.status, anonymous.text).toBeLessThan(300);
    const upgrade = await eventsOf(() =>
      server.request("/api/v1/auth/password/sign-up", {
        method: "POST",
        headers: project.headers("client", {
          "x-stack-access-token": anonymous.body.access_token,
          "x-stack-allow-anonymous-user": "true",
        }),
        body: { email: "linus@events.example", password: "a long password 123" },
      }),
    );
    expect(upgrade).toEqual([
      [
        "user.updated",
        expect.objectContaining({ primary_email: "linus@events.example", is_anonymous: false }),
      ],
    ]);
  });

  it("writes user.created for each user of a bulk import, as for one created alone", async () => {
    const imported = await eventsOf(async () => {
      const response = await server.request("/api/v1/users/import", {
        method: "POST",
        headers: project.headers("admin"),
        body: {
          users: [
            { primary_email: "bulk1@events.example", display_name: "Bulk One" },
            { primary_email: "bulk2@events.example", primary_email_verified: true },
          ],
        },
      });
      expect(response.status, response.text).toBe(200);
    });
    expect(imported).toEqual([
      [
        "user.created",
        expect.objectContaining({ primary_email: "bulk1@events.example", display_name: "Bulk One" }),
      ],
      [
        "user.created",
        expect.objectContaining({ primary_email: "bulk2@events.example", primary_email_verified: true }),
      ],
    ]);
  });
});
