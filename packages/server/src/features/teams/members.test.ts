import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { users } from "../users/schema.ts";
import { seamState } from "./test-seam.ts";
import { openTeamsTestFile, PNG, type TeamsApi, teamsApi, UNKNOWN_ID } from "./test-support.ts";

vi.mock("./permission-seam.ts", () => import("./test-seam.ts"));

let server: TestServer;
let project: TestProject;
let api: TeamsApi;
openTeamsTestFile("Members", (opened) => ({ server, project, api } = opened));

describe("POST /team-memberships/:team_id/:user_id", () => {
  it("adds a member with the member default permissions, once", async () => {
    const ada = await api.user();
    const team = await api.team("Join me");
    const added = await api.post(`/team-memberships/${team.id}/${ada.user.id}`, "server", {});
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ team_id: team.id, user_id: ada.user.id });
    expect(seamState.grants).toEqual([
      { projectId: project.id, teamId: team.id, userId: ada.user.id, kind: "member" },
    ]);
    expect((await api.get(`/teams/${team.id}`, ada.as)).status).toBe(200);

    expectKnownError(
      await api.post(`/team-memberships/${team.id}/${ada.user.id}`, "admin", {}),
      409,
      "TEAM_MEMBERSHIP_ALREADY_EXISTS",
    );
    expect(seamState.grants).toHaveLength(1);
  });

  it("refuses unknown teams and users, other projects' users, bodies and clients", async () => {
    const ada = await api.user();
    const team = await api.team("Strict");
    const otherApi = teamsApi(server, await server.createProject("Other"));
    const stranger = await otherApi.user();
    expectKnownError(
      await api.post(`/team-memberships/${UNKNOWN_ID}/${ada.user.id}`, "server"),
      404,
      "TEAM_NOT_FOUND",
      {
        team_id: UNKNOWN_ID,
      },
    );
    expectKnownError(
      await api.post(`/team-memberships/${team.id}/${UNKNOWN_ID}`, "server"),
      404,
      "USER_NOT_FOUND",
    );
    expectKnownError(
      await api.post(`/team-memberships/${team.id}/not-a-uuid`, "server"),
      400,
      "SCHEMA_ERROR",
    );
    expectKnownError(
      await api.post(`/team-memberships/${team.id}/${stranger.user.id}`, "server"),
      404,
      "USER_NOT_FOUND",
    );
    expectKnownError(
      await api.post(`/team-memberships/${team.id}/${ada.user.id}`, "server", { role: "x" }),
      400,
      "SCHEMA_ERROR",
    );
    expectKnownError(
      await api.post(`/team-memberships/${team.id}/me`, ada.as),
      401,
      "INSUFFICIENT_ACCESS_TYPE",
    );
    expect((await api.get(`/team-member-profiles?team_id=${team.id}`, "server")).body.items).toEqual([]);
  });
});

describe("DELETE /team-memberships/:team_id/:user_id", () => {
  it("lets a client leave a team with `me`, clearing it as selected team", async () => {
    const ada = await api.user();
    const team = await api.team("Leave me", [ada.user.id]);
    await server.deps.db.update(users).set({ selectedTeamId: team.id }).where(eq(users.id, ada.user.id));
    // Leaving needs no permission at all.
    seamState.denied.add("$remove_members");
    expect((await api.del(`/team-memberships/${team.id}/me`, ada.as)).body).toEqual({ success: true });
    expect(await api.selectedTeamOf(ada.user.id)).toBeNull();
    expectKnownError(await api.get(`/teams/${team.id}`, ada.as), 404, "TEAM_MEMBERSHIP_NOT_FOUND");
    expectKnownError(
      await api.del(`/team-memberships/${team.id}/me`, ada.as),
      404,
      "TEAM_MEMBERSHIP_NOT_FOUND",
      {
        team_id: team.id,
        user_id: ada.user.id,
      },
    );
    expectKnownError(
      await api.del(`/team-memberships/${team.id}/me`, "client-anonymous"),
      400,
      "CANNOT_GET_OWN_USER_WITHOUT_USER",
    );
  });

  it("lets a client with $remove_members remove others, and nobody else", async () => {
    const ada = await api.user();
    const bob = await api.user();
    const eve = await api.user();
    const team = await api.team("Removal", [ada.user.id, bob.user.id]);
    seamState.denied.add(`${ada.user.id}:$remove_members`);
    expectKnownError(
      await api.del(`/team-memberships/${team.id}/${bob.user.id}`, ada.as),
      401,
      "TEAM_PERMISSION_REQUIRED",
      { team_id: team.id, user_id: ada.user.id, permission_id: "$remove_members" },
    );
    expectKnownError(
      await api.del(`/team-memberships/${team.id}/${bob.user.id}`, eve.as),
      404,
      "TEAM_NOT_FOUND",
    );
    expect((await api.del(`/team-memberships/${team.id}/${ada.user.id}`, bob.as)).body).toEqual({
      success: true,
    });
    expectKnownError(
      await api.del(`/team-memberships/${team.id}/${eve.user.id}`, bob.as),
      404,
      "TEAM_MEMBERSHIP_NOT_FOUND",
    );
  });

  it("lets servers remove anyone, with clear errors for unknown teams and members", async () => {
    const ada = await api.user();
    const team = await api.team("Server removal", [ada.user.id]);
    expectKnownError(
      await api.del(`/team-memberships/${UNKNOWN_ID}/${ada.user.id}`, "server"),
      404,
      "TEAM_NOT_FOUND",
    );
    expect((await api.del(`/team-memberships/${team.id}/${ada.user.id}`, "server")).body).toEqual({
      success: true,
    });
    expectKnownError(
      await api.del(`/team-memberships/${team.id}/${ada.user.id}`, "server"),
      404,
      "TEAM_MEMBERSHIP_NOT_FOUND",
    );
    expectKnownError(await api.del(`/team-memberships/${team.id}/not-a-uuid`, "server"), 400, "SCHEMA_ERROR");
  });
});

describe("team member profiles", () => {
  it("list a team's members for clients with $read_members, in client view", async () => {
    const ada = await api.user({ displayName: "Ada" });
    const bob = await api.user({ displayName: "Bob", primaryEmail: "bob@example.com" });
    const team = await api.team("Profiles", [ada.user.id, bob.user.id]);
    const list = await api.get(`/team-member-profiles?team_id=${team.id}`, ada.as);
    expect(list.status, list.text).toBe(200);
    expect(list.body).toEqual({
      items: [
        { team_id: team.id, user_id: ada.user.id, display_name: "Ada", profile_image_url: null },
        { team_id: team.id, user_id: bob.user.id, display_name: "Bob", profile_image_url: null },
      ],
      is_paginated: false,
    });
  });

  it("need $read_members for others' profiles but not one's own", async () => {
    const ada = await api.user();
    const bob = await api.user();
    const eve = await api.user();
    const team = await api.team("Private", [ada.user.id, bob.user.id]);
    seamState.denied.add("$read_members");
    const denied = { team_id: team.id, user_id: ada.user.id, permission_id: "$read_members" };
    expectKnownError(
      await api.get(`/team-member-profiles?team_id=${team.id}`, ada.as),
      401,
      "TEAM_PERMISSION_REQUIRED",
      denied,
    );
    expectKnownError(
      await api.get(`/team-member-profiles/${team.id}/${bob.user.id}`, ada.as),
      401,
      "TEAM_PERMISSION_REQUIRED",
      denied,
    );
    const own = await api.get(`/team-member-profiles?team_id=${team.id}&user_id=me`, ada.as);
    expect(own.body.items.map((p: { user_id: string }) => p.user_id)).toEqual([ada.user.id]);
    expect((await api.get(`/team-member-profiles/${team.id}/me`, ada.as)).body.user_id).toBe(ada.user.id);

    expectKnownError(
      await api.get(`/team-member-profiles?team_id=${team.id}`, eve.as),
      404,
      "TEAM_NOT_FOUND",
    );
    expectKnownError(await api.get(`/team-member-profiles/${team.id}/me`, eve.as), 404, "TEAM_NOT_FOUND");
    expect((await api.get("/team-member-profiles", ada.as)).status).toBe(400);
    expectKnownError(
      await api.get(`/team-member-profiles?team_id=${team.id}&x=1`, ada.as),
      400,
      "SCHEMA_ERROR",
    );
  });

  it("carry the full server user for servers, batch-loaded, filtered by team and/or user", async () => {
    const ada = await api.user({
      displayName: "Ada",
      primaryEmail: "ada@example.com",
      primaryEmailVerified: true,
    });
    const bob = await api.user({ displayName: "Bob" });
    const first = await api.team("First", [ada.user.id, bob.user.id]);
    const second = await api.team("Second", [ada.user.id]);
    const byTeam = await api.get(`/team-member-profiles?team_id=${first.id}`, "server");
    expect(byTeam.body.items).toHaveLength(2);
    expect(byTeam.body.items[0].user).toMatchObject({
      id: ada.user.id,
      primary_email: "ada@example.com",
      primary_email_verified: true,
      display_name: "Ada",
      server_metadata: null,
    });
    const byUser = await api.get(`/team-member-profiles?user_id=${ada.user.id}`, "admin");
    expect(byUser.body.items.map((p: { team_id: string }) => p.team_id)).toEqual([first.id, second.id]);
    const both = await api.get(`/team-member-profiles?team_id=${second.id}&user_id=${bob.user.id}`, "server");
    expect(both.body.items).toEqual([]);
    const one = await api.get(`/team-member-profiles/${first.id}/${bob.user.id}`, "server");
    expect(one.body).toMatchObject({ team_id: first.id, user_id: bob.user.id, user: { id: bob.user.id } });
    expectKnownError(
      await api.get(`/team-member-profiles?team_id=${UNKNOWN_ID}`, "server"),
      404,
      "TEAM_NOT_FOUND",
    );
    expectKnownError(
      await api.get(`/team-member-profiles/${second.id}/${bob.user.id}`, "server"),
      404,
      "TEAM_MEMBERSHIP_NOT_FOUND",
      { team_id: second.id, user_id: bob.user.id },
    );
  });

  it("can be updated by their own member (clients) or anyone (servers)", async () => {
    const ada = await api.user({ displayName: "Ada" });
    const bob = await api.user({ displayName: "Bob" });
    const team = await api.team("Editable", [ada.user.id, bob.user.id]);
    const mine = await api.patch(`/team-member-profiles/${team.id}/me`, ada.as, {
      display_name: "Ada at work",
      profile_image_url: PNG,
    });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body).toEqual({
      team_id: team.id,
      user_id: ada.user.id,
      display_name: "Ada at work",
      profile_image_url: expect.stringMatching(/\/files\/team-member-profile-images\/[0-9a-f-]{36}\.png$/),
    });
    expect(
      (await api.patch(`/team-member-profiles/${team.id}/${bob.user.id}`, ada.as, { display_name: "x" }))
        .status,
    ).toBe(403);
    const bySrv = await api.patch(`/team-member-profiles/${team.id}/${bob.user.id}`, "server", {
      display_name: "B.",
    });
    expect(bySrv.body).toMatchObject({ display_name: "B.", user: { display_name: "Bob" } });
    // null goes back to the user's own name.
    const reset = await api.patch(`/team-member-profiles/${team.id}/${bob.user.id}`, "server", {
      display_name: null,
    });
    expect(reset.body.display_name).toBe("Bob");
    expectKnownError(
      await api.patch(`/team-member-profiles/${team.id}/me`, ada.as, { display_name: 5 }),
      400,
      "SCHEMA_ERROR",
    );
    // Clients upload pictures inline; servers may also link them. Refused with the reference's plain text.
    for (const url of ["ftp://x", "https://cdn.example.com/a.png"]) {
      const refused = await api.patch(`/team-member-profiles/${team.id}/me`, ada.as, {
        profile_image_url: url,
      });
      expect({ status: refused.status, text: refused.text }).toEqual({
        status: 400,
        text: "Invalid profile image URL",
      });
    }
    const linked = await api.patch(`/team-member-profiles/${team.id}/${ada.user.id}`, "server", {
      profile_image_url: "https://cdn.example.com/a.png",
    });
    expect(linked.body.profile_image_url).toBe("https://cdn.example.com/a.png");
    expectKnownError(
      await api.patch(`/team-member-profiles/${team.id}/me`, ada.as, { display_name: "a\u0000b" }),
      400,
      "SCHEMA_ERROR",
    );
    const eve = await api.user();
    expectKnownError(
      await api.patch(`/team-member-profiles/${team.id}/me`, eve.as, { display_name: "x" }),
      404,
      "TEAM_NOT_FOUND",
    );
    const outsider = await api.user();
    expectKnownError(
      await api.patch(`/team-member-profiles/${team.id}/${outsider.user.id}`, "server", {
        display_name: "x",
      }),
      404,
      "TEAM_MEMBERSHIP_NOT_FOUND",
    );
  });

  it("are isolated between projects", async () => {
    const ada = await api.user();
    const team = await api.team("Mine", [ada.user.id]);
    const otherApi = teamsApi(server, await server.createProject("Other"));
    expectKnownError(
      await otherApi.get(`/team-member-profiles?team_id=${team.id}`, "server"),
      404,
      "TEAM_NOT_FOUND",
    );
    expect((await otherApi.get(`/team-member-profiles?user_id=${ada.user.id}`, "server")).body.items).toEqual(
      [],
    );
    expectKnownError(
      await otherApi.patch(`/team-member-profiles/${team.id}/${ada.user.id}`, "server", {
        display_name: "x",
      }),
      404,
      "TEAM_NOT_FOUND",
    );
    expectKnownError(
      await otherApi.del(`/team-memberships/${team.id}/${ada.user.id}`, "server"),
      404,
      "TEAM_NOT_FOUND",
    );
  });
});
