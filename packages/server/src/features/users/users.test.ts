import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { teamMembers } from "../teams/schema.ts";
import { users } from "./schema.ts";
import {
  asUser,
  CLIENT_VIEW_KEYS,
  channelsOf,
  insertTeam,
  SERVER_VIEW_KEYS,
  sessionCount,
  userRow,
} from "./test-support.ts";

let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Users");
  other = await server.createProject("Another project");
});
afterAll(() => server.close());

const create = (body: unknown, target: TestProject = project, accessType: "server" | "admin" = "server") =>
  server.request("/api/v1/users", { method: "POST", headers: target.headers(accessType), body });

const errorCode = (response: { headers: Headers }) => response.headers.get("x-stack-known-error");

describe("GET /users/me", () => {
  it("gives a client exactly the client view, without server-only fields", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id, {
      primaryEmail: "me@example.com",
      displayName: "Me",
      serverMetadata: { secret: 1 },
      clientMetadata: { theme: "dark" },
    });
    const teamId = await insertTeam(server, project.id, [user.id], "Mine");
    await server.deps.db.update(users).set({ selectedTeamId: teamId }).where(eq(users.id, user.id));

    const response = await server.request("/api/v1/users/me", { headers: asUser(project, accessToken) });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(CLIENT_VIEW_KEYS);
    expect(Object.keys(response.body.selected_team).sort()).toEqual(
      ["id", "display_name", "profile_image_url", "client_metadata", "client_read_only_metadata"].sort(),
    );
    expect(response.body).toMatchObject({
      id: user.id,
      primary_email: "me@example.com",
      display_name: "Me",
      client_metadata: { theme: "dark" },
      selected_team_id: teamId,
      is_restricted: false,
      restricted_reason: null,
    });
    expect(response.text).not.toContain("secret");
  });

  it("gives server and admin callers exactly the server view", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id, {
      serverMetadata: { secret: 1 },
    });
    for (const accessType of ["server", "admin"] as const) {
      const response = await server.request("/api/v1/users/me", {
        headers: asUser(project, accessToken, accessType),
      });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(SERVER_VIEW_KEYS);
      expect(response.body).toMatchObject({
        id: user.id,
        server_metadata: { secret: 1 },
        risk_scores: { sign_up: { bot: 0, free_trial_abuse: 0 } },
        country_code: null,
      });
    }
  });

  it("needs a user", async () => {
    for (const accessType of ["client", "server"] as const) {
      const response = await server.request("/api/v1/users/me", { headers: project.headers(accessType) });
      expect(response.status).toBe(400);
      expect(errorCode(response)).toBe("CANNOT_GET_OWN_USER_WITHOUT_USER");
    }
  });
});

describe("GET /users/:user_id", () => {
  it("reads a user for server and admin access, with `me` standing for the signed-in user", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id, { displayName: "Read me" });
    for (const accessType of ["server", "admin"] as const) {
      const response = await server.request(`/api/v1/users/${user.id}`, {
        headers: project.headers(accessType),
      });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(SERVER_VIEW_KEYS);
      expect(response.body.display_name).toBe("Read me");
    }
    const me = await server.request("/api/v1/users/me", { headers: asUser(project, accessToken, "server") });
    expect(me.body.id).toBe(user.id);
  });

  it("answers USER_NOT_FOUND for unknown ids, malformed ids and users of another project", async () => {
    const { user: foreign } = await createSignedInUser(server, other.id);
    for (const id of ["7d1f6c2e-0b3a-4e5f-8a9b-0c1d2e3f4a5b", "not-a-uuid", foreign.id]) {
      const response = await server.request(`/api/v1/users/${id}`, { headers: project.headers("server") });
      expect(response.status).toBe(404);
      expect(errorCode(response)).toBe("USER_NOT_FOUND");
    }
  });

  it("is not for clients", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const response = await server.request(`/api/v1/users/${user.id}`, {
      headers: asUser(project, accessToken),
    });
    expect(errorCode(response)).toBe("INSUFFICIENT_ACCESS_TYPE");
  });
});

describe("DELETE /users/:user_id", () => {
  it("removes the user with their sessions, contact channels and memberships", async () => {
    const { user, refreshToken } = await createSignedInUser(server, project.id, {
      primaryEmail: "gone@example.com",
    });
    const teamId = await insertTeam(server, project.id, [user.id]);
    expect(await sessionCount(server, user.id)).toBe(1);

    const response = await server.request(`/api/v1/users/${user.id}`, {
      method: "DELETE",
      headers: project.headers("server"),
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });

    expect(await userRow(server, user.id)).toBeNull();
    expect(await sessionCount(server, user.id)).toBe(0);
    expect(await channelsOf(server, project.id, user.id)).toEqual([]);
    expect(await server.deps.db.select().from(teamMembers).where(eq(teamMembers.teamId, teamId))).toEqual([]);
    const refresh = await server.request("/api/v1/auth/sessions/current/refresh", {
      method: "POST",
      headers: project.headers("client", { "x-stack-refresh-token": refreshToken }),
    });
    expect(errorCode(refresh)).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    const read = await server.request(`/api/v1/users/${user.id}`, { headers: project.headers("server") });
    expect(errorCode(read)).toBe("USER_NOT_FOUND");
    // The email is free again.
    expect((await create({ primary_email: "gone@example.com" })).status).toBe(201);
  });

  it("cannot delete a user of another project", async () => {
    const { user: foreign } = await createSignedInUser(server, other.id);
    const response = await server.request(`/api/v1/users/${foreign.id}`, {
      method: "DELETE",
      headers: project.headers("admin"),
    });
    expect(response.status).toBe(404);
    expect(errorCode(response)).toBe("USER_NOT_FOUND");
    expect(await userRow(server, foreign.id)).not.toBeNull();
  });
});

describe("DELETE /users/me", () => {
  it("refuses clients unless the project allows client user deletion", async () => {
    const deletable = await server.createProject("Client deletion");
    const { user, accessToken } = await createSignedInUser(server, deletable.id);
    const refused = await server.request("/api/v1/users/me", {
      method: "DELETE",
      headers: asUser(deletable, accessToken),
    });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("Client user deletion is not enabled");
    expect(await userRow(server, user.id)).not.toBeNull();

    await deletable.configure({ "users.allowClientUserDeletion": true });
    const deleted = await server.request("/api/v1/users/me", {
      method: "DELETE",
      headers: asUser(deletable, accessToken),
      body: {},
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });
    expect(await userRow(server, user.id)).toBeNull();
    // The token still verifies, but its user is gone.
    const me = await server.request("/api/v1/users/me", { headers: asUser(deletable, accessToken) });
    expect(errorCode(me)).toBe("CANNOT_GET_OWN_USER_WITHOUT_USER");
  });

  it("lets server access delete the signed-in user, and needs one", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const deleted = await server.request("/api/v1/users/me", {
      method: "DELETE",
      headers: asUser(project, accessToken, "server"),
    });
    expect(deleted.body).toEqual({ success: true });
    expect(await userRow(server, user.id)).toBeNull();
    const noUser = await server.request("/api/v1/users/me", {
      method: "DELETE",
      headers: project.headers("server"),
    });
    expect(errorCode(noUser)).toBe("CANNOT_GET_OWN_USER_WITHOUT_USER");
  });
});
