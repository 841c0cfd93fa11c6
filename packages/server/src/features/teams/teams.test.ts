import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { users } from "../users/schema.ts";
import { seamState } from "./test-seam.ts";
import { openTeamsTestFile, PNG, type Reply, type TeamsApi, teamsApi, UNKNOWN_ID } from "./test-support.ts";

vi.mock("./permission-seam.ts", () => import("./test-seam.ts"));

let server: TestServer;
let project: TestProject;
let api: TeamsApi;
openTeamsTestFile("Teams", (opened) => ({ server, project, api } = opened));

const SERVER_TEAM_KEYS = [
  "client_metadata",
  "client_read_only_metadata",
  "created_at_millis",
  "display_name",
  "id",
  "profile_image_url",
  "server_metadata",
];
const CLIENT_TEAM_KEYS = [
  "client_metadata",
  "client_read_only_metadata",
  "display_name",
  "id",
  "profile_image_url",
];

describe("POST /teams", () => {
  it("lets a server create a team whose creator becomes a member with the creator permissions", async () => {
    const ada = await api.user({ displayName: "Ada" });
    const created = await api.post("/teams", "server", {
      display_name: "Engines",
      creator_user_id: ada.user.id,
      server_metadata: { plan: "pro" },
      client_read_only_metadata: { seats: 3 },
    });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(SERVER_TEAM_KEYS);
    expect(created.body).toMatchObject({
      display_name: "Engines",
      profile_image_url: null,
      client_metadata: null,
      client_read_only_metadata: { seats: 3 },
      server_metadata: { plan: "pro" },
    });
    expect(seamState.grants).toEqual([
      { projectId: project.id, teamId: created.body.id, userId: ada.user.id, kind: "creator" },
    ]);
    const mine = await api.get("/teams?user_id=me", ada.as);
    expect(mine.body.items.map((t: { id: string }) => t.id)).toEqual([created.body.id]);
  });

  it("creates a team without members when no creator is named, and answers the documented empty shape", async () => {
    const created = await api.post("/teams", "admin", { display_name: "Lonely" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: created.body.id,
      display_name: "Lonely",
      profile_image_url: null,
      client_metadata: null,
      client_read_only_metadata: null,
      server_metadata: null,
      created_at_millis: expect.any(Number),
    });
    const members = await api.get(`/team-member-profiles?team_id=${created.body.id}`, "server");
    expect(members.body.items).toEqual([]);
    expect(seamState.grants).toEqual([]);
  });

  it("refuses client creation unless the project allows it", async () => {
    const ada = await api.user();
    const refused = await api.post("/teams", ada.as, { display_name: "Nope", creator_user_id: "me" });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("Client team creation is disabled");
  });

  describe("with client team creation on", () => {
    beforeAll(() => project.configure({ "teams.allowClientTeamCreation": true }));
    afterAll(() => project.configure({ "teams.allowClientTeamCreation": false }));

    it("lets a client create a team for itself and answers the client view", async () => {
      const ada = await api.user();
      for (const creator of ["me", ada.user.id, undefined]) {
        const created = await api.post("/teams", ada.as, {
          display_name: "Mine",
          client_metadata: { color: "red" },
          profile_image_url: PNG,
          ...(creator === undefined ? {} : { creator_user_id: creator }),
        });
        expect(created.status, created.text).toBe(201);
        expect(Object.keys(created.body).sort()).toEqual(CLIENT_TEAM_KEYS);
        expect(created.body.client_metadata).toEqual({ color: "red" });
        expect(seamState.grants.at(-1)).toMatchObject({ userId: ada.user.id, kind: "creator" });
      }
    });

    it("refuses a client creating a team for someone else, or without a user, or with server fields", async () => {
      const ada = await api.user();
      const bob = await api.user();
      const forBob = await api.post("/teams", ada.as, { display_name: "X", creator_user_id: bob.user.id });
      expect(forBob.status).toBe(403);
      expectKnownError(
        await api.post("/teams", "client-anonymous", { display_name: "X" }),
        401,
        "USER_AUTHENTICATION_REQUIRED",
      );
      const linked = await api.post("/teams", ada.as, {
        display_name: "X",
        profile_image_url: "https://x.example/a.png",
      });
      expect({ status: linked.status, text: linked.text }).toEqual({
        status: 400,
        text: "Invalid profile image URL",
      });
      for (const field of ["server_metadata", "client_read_only_metadata"]) {
        const response = await api.post("/teams", ada.as, { display_name: "X", [field]: { a: 1 } });
        expectKnownError(response, 400, "SCHEMA_ERROR");
        expect(response.body.error).toContain(field);
      }
    });
  });

  it("refuses bad bodies with 4xx", async () => {
    const bad: unknown[] = [
      {},
      { display_name: "" },
      { display_name: 42 },
      { display_name: "x".repeat(2000) },
      { display_name: "a\u0000b" },
      { display_name: "X", client_metadata: { note: "x\u0000y" } },
      { display_name: "X", server_metadata: { "k\u0000": 1 } },
      { display_name: "X", client_metadata: "x".repeat(200_000) },
      { display_name: "X", unknown_field: true },
      [],
    ];
    for (const body of bad) expectKnownError(await api.post("/teams", "server", body), 400, "SCHEMA_ERROR");
    const script = await api.post("/teams", "server", {
      display_name: "X",
      profile_image_url: "javascript:alert(1)",
    });
    expect({ status: script.status, text: script.text }).toEqual({
      status: 400,
      text: "Invalid profile image URL",
    });
    // The reference's answer to an unknown creator (team-parity.test.ts).
    for (const creator of [UNKNOWN_ID, "not-a-uuid"]) {
      expectKnownError(
        await api.post("/teams", "server", { display_name: "X", creator_user_id: creator }),
        404,
        "USER_NOT_FOUND",
      );
    }
    expectKnownError(
      await api.post("/teams", "server", { display_name: "X", creator_user_id: "me" }),
      400,
      "CANNOT_GET_OWN_USER_WITHOUT_USER",
    );
  });
});

describe("GET /teams", () => {
  it("lists a client's own teams only, and needs user_id=me", async () => {
    const ada = await api.user();
    const bob = await api.user();
    const shared = await api.team("Shared", [ada.user.id, bob.user.id]);
    const bobs = await api.team("Bob's", [bob.user.id]);
    const list = await api.get("/teams?user_id=me", ada.as);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ items: [expect.objectContaining({ id: shared.id })], is_paginated: false });
    expect(Object.keys(list.body.items[0]).sort()).toEqual(CLIENT_TEAM_KEYS);

    const bobsList = await api.get(`/teams?user_id=${bob.user.id}`, bob.as);
    expect(bobsList.body.items.map((t: { id: string }) => t.id)).toEqual([shared.id, bobs.id]);

    expect((await api.get("/teams", ada.as)).status).toBe(403);
    expect((await api.get(`/teams?user_id=${bob.user.id}`, ada.as)).status).toBe(403);
    expectKnownError(
      await api.get("/teams?user_id=me", "client-anonymous"),
      400,
      "CANNOT_GET_OWN_USER_WITHOUT_USER",
    );
    expectKnownError(await api.get("/teams?user_id=me&foo=1", ada.as), 400, "SCHEMA_ERROR");
  });

  it("lets servers list every team of the project, or one user's, in server view", async () => {
    const other = await server.createProject("Other");
    const otherApi = teamsApi(server, other);
    const foreign = await otherApi.team("Foreign");
    const ada = await api.user();
    const team = await api.team("Server listed", [ada.user.id]);

    const all = await api.get("/teams", "server");
    const ids = all.body.items.map((t: { id: string }) => t.id);
    expect(ids).toContain(team.id);
    expect(ids).not.toContain(foreign.id);
    expect(Object.keys(all.body.items[0]).sort()).toEqual(SERVER_TEAM_KEYS);

    const adas = await api.get(`/teams?user_id=${ada.user.id}`, "admin");
    expect(adas.body.items.map((t: { id: string }) => t.id)).toEqual([team.id]);
    expectKnownError(await api.get(`/teams?user_id=${UNKNOWN_ID}`, "server"), 404, "USER_NOT_FOUND");
    expectKnownError(await api.get("/teams?user_id=nope", "server"), 404, "USER_NOT_FOUND");
  });
});

describe("GET /teams pagination", () => {
  it("pages with limit and cursor, in either order, and searches names and ids", async () => {
    const paged = teamsApi(server, await server.createProject("Paged"));
    const ids: string[] = [];
    for (const name of ["Alpha", "Beta", "Gamma", "Delta", "Epsilon"]) ids.push((await paged.team(name)).id);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Reply = await paged.get(`/teams?limit=2${cursor ? `&cursor=${cursor}` : ""}`, "server");
      expect(page.status, page.text).toBe(200);
      expect(page.body.is_paginated).toBe(true);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((t: { id: string }) => t.id));
      cursor = page.body.pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids);

    const newest = await paged.get("/teams?limit=2&desc=true&order_by=created_at", "server");
    expect(newest.body.items.map((t: { id: string }) => t.id)).toEqual([ids[4], ids[3]]);
    expect(newest.body.pagination.next_cursor).toBe(ids[2]);

    const all = await paged.get("/teams", "server");
    expect(all.body).toMatchObject({ is_paginated: false });
    expect(all.body.items).toHaveLength(5);
    const found = await paged.get("/teams?query=ELTA", "server");
    expect(found.body.items.map((t: { display_name: string }) => t.display_name)).toEqual(["Delta"]);
    const byId = await paged.get(`/teams?query=${ids[1]}`, "server");
    expect(byId.body.items.map((t: { id: string }) => t.id)).toEqual([ids[1]]);
    expect((await paged.get("/teams?query=%25", "server")).body.items).toEqual([]);

    for (const bad of ["limit=0", "limit=abc", "limit=1000", "cursor=nope", "desc=yes", "order_by=name"]) {
      expectKnownError(await paged.get(`/teams?${bad}`, "server"), 400, "SCHEMA_ERROR");
    }
    expect((await paged.get(`/teams?limit=2&cursor=${UNKNOWN_ID}`, "server")).status).toBe(400);
  });
});

describe("GET /teams/:team_id", () => {
  it("shows members their team and hides it from everyone else", async () => {
    const ada = await api.user();
    const eve = await api.user();
    const team = await api.team("Visible", [ada.user.id]);
    const read = await api.get(`/teams/${team.id}`, ada.as);
    expect(read.status).toBe(200);
    expect(Object.keys(read.body).sort()).toEqual(CLIENT_TEAM_KEYS);
    expectKnownError(await api.get(`/teams/${team.id}`, eve.as), 404, "TEAM_MEMBERSHIP_NOT_FOUND", {
      team_id: team.id,
      user_id: eve.user.id,
    });
    expectKnownError(
      await api.get(`/teams/${team.id}`, "client-anonymous"),
      401,
      "USER_AUTHENTICATION_REQUIRED",
    );
    const asServer = await api.get(`/teams/${team.id}`, "server");
    expect(Object.keys(asServer.body).sort()).toEqual(SERVER_TEAM_KEYS);
  });

  it("answers TEAM_NOT_FOUND for unknown and other projects' ids, SCHEMA_ERROR for malformed ones", async () => {
    const other = await server.createProject("Elsewhere");
    const foreign = await teamsApi(server, other).team("Foreign");
    for (const id of [UNKNOWN_ID, foreign.id]) {
      expectKnownError(await api.get(`/teams/${id}`, "server"), 404, "TEAM_NOT_FOUND", { team_id: id });
      expectKnownError(
        await api.patch(`/teams/${id}`, "server", { display_name: "x" }),
        404,
        "TEAM_NOT_FOUND",
      );
      expectKnownError(await api.del(`/teams/${id}`, "server"), 404, "TEAM_NOT_FOUND");
    }
    expect((await teamsApi(server, other).get(`/teams/${foreign.id}`, "server")).status).toBe(200);
    // As the reference's teamIdSchema (a UUID) answers a path id that cannot name a team.
    const malformed = await api.get("/teams/not-a-uuid", "server");
    expectKnownError(malformed, 400, "SCHEMA_ERROR");
    expect(malformed.body.error).toContain("params.team_id");
    expectKnownError(
      await api.patch("/teams/not-a-uuid", "server", { display_name: "x" }),
      400,
      "SCHEMA_ERROR",
    );
    expectKnownError(await api.del("/teams/not-a-uuid", "server"), 400, "SCHEMA_ERROR");
  });
});

describe("PATCH /teams/:team_id", () => {
  it("lets a member with $update_team update the client fields", async () => {
    const ada = await api.user();
    const team = await api.team("Before", [ada.user.id]);
    const updated = await api.patch(`/teams/${team.id}`, ada.as, {
      display_name: "After",
      client_metadata: { a: 1 },
      profile_image_url: PNG,
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({
      display_name: "After",
      client_metadata: { a: 1 },
      profile_image_url: expect.stringMatching(/\/files\/team-profile-images\/[0-9a-f-]{36}\.png$/),
    });
    expect(Object.keys(updated.body).sort()).toEqual(CLIENT_TEAM_KEYS);
    const cleared = await api.patch(`/teams/${team.id}`, ada.as, {
      client_metadata: null,
      profile_image_url: null,
    });
    expect(cleared.body).toMatchObject({
      display_name: "After",
      client_metadata: null,
      profile_image_url: null,
    });
  });

  it("refuses members without $update_team, non-members and client-only violations", async () => {
    const ada = await api.user();
    const eve = await api.user();
    const team = await api.team("Guarded", [ada.user.id]);
    seamState.denied.add("$update_team");
    expectKnownError(
      await api.patch(`/teams/${team.id}`, ada.as, { display_name: "X" }),
      401,
      "TEAM_PERMISSION_REQUIRED",
      {
        team_id: team.id,
        user_id: ada.user.id,
        permission_id: "$update_team",
      },
    );
    seamState.denied.clear();
    expectKnownError(
      await api.patch(`/teams/${team.id}`, eve.as, { display_name: "X" }),
      404,
      "TEAM_MEMBERSHIP_NOT_FOUND",
    );
    expectKnownError(
      await api.patch(`/teams/${team.id}`, ada.as, { server_metadata: 1 }),
      400,
      "SCHEMA_ERROR",
    );
    expect((await api.get(`/teams/${team.id}`, "server")).body.display_name).toBe("Guarded");
  });

  it("lets servers update every field, and an empty body changes nothing", async () => {
    const team = await api.team("Srv");
    const updated = await api.patch(`/teams/${team.id}`, "server", {
      server_metadata: { s: true },
      client_read_only_metadata: [1, 2],
    });
    expect(updated.body).toMatchObject({ server_metadata: { s: true }, client_read_only_metadata: [1, 2] });
    const same = await api.patch(`/teams/${team.id}`, "server", {});
    expect(same.body).toEqual(updated.body);
  });
});

describe("DELETE /teams/:team_id", () => {
  it("needs $delete_team from clients", async () => {
    const ada = await api.user();
    const team = await api.team("Doomed", [ada.user.id]);
    seamState.denied.add(`${ada.user.id}:$delete_team`);
    expectKnownError(await api.del(`/teams/${team.id}`, ada.as), 401, "TEAM_PERMISSION_REQUIRED", {
      team_id: team.id,
      user_id: ada.user.id,
      permission_id: "$delete_team",
    });
    seamState.denied.clear();
    const eve = await api.user();
    expectKnownError(await api.del(`/teams/${team.id}`, eve.as), 404, "TEAM_MEMBERSHIP_NOT_FOUND");
    expect(await api.del(`/teams/${team.id}`, ada.as)).toMatchObject({
      status: 200,
      body: { success: true },
    });
    expectKnownError(await api.get(`/teams/${team.id}`, "server"), 404, "TEAM_NOT_FOUND");
  });

  it("removes the memberships and clears the selected team of members who had it selected", async () => {
    const ada = await api.user();
    const bob = await api.user();
    const team = await api.team("Going", [ada.user.id, bob.user.id]);
    const kept = await api.team("Staying", [bob.user.id]);
    await server.deps.db.update(users).set({ selectedTeamId: team.id }).where(eq(users.id, ada.user.id));
    await server.deps.db.update(users).set({ selectedTeamId: kept.id }).where(eq(users.id, bob.user.id));

    expect((await api.del(`/teams/${team.id}`, "server")).body).toEqual({ success: true });
    expect(await api.selectedTeamOf(ada.user.id)).toBeNull();
    expect(await api.selectedTeamOf(bob.user.id)).toBe(kept.id);
    expect((await api.get("/teams?user_id=me", ada.as)).body.items).toEqual([]);
    const profiles = await api.get(`/team-member-profiles?user_id=${bob.user.id}`, "server");
    expect(profiles.body.items.map((p: { team_id: string }) => p.team_id)).toEqual([kept.id]);
    expectKnownError(await api.del(`/teams/${team.id}`, "server"), 404, "TEAM_NOT_FOUND");
  });
});

describe("personal teams", () => {
  it("are created on sign-up when the project asks for it, and listed and selected for their user", async () => {
    await project.configure({ "teams.createPersonalTeamOnSignUp": true });
    try {
      const ada = await api.user({ displayName: "Ada", primaryEmail: "ada@example.com" });
      const list = await api.get("/teams?user_id=me", ada.as);
      expect(list.body.items).toEqual([expect.objectContaining({ display_name: "Ada's Team" })]);
      expect(await api.selectedTeamOf(ada.user.id)).toBe(list.body.items[0].id);
      // Leaving one's personal team is allowed, and it is no longer selected afterwards.
      const left = await api.del(`/team-memberships/${list.body.items[0].id}/me`, ada.as);
      expect(left.body).toEqual({ success: true });
      expect(await api.selectedTeamOf(ada.user.id)).toBeNull();
    } finally {
      await project.configure({ "teams.createPersonalTeamOnSignUp": false });
    }
  });
});
