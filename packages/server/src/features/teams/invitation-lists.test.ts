import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { expectKnownError, expectPlainError as expectPlain } from "../../testing/known-errors.ts";
import { teamInvitations } from "./schema.ts";
import { seamState } from "./test-seam.ts";
import { freshEmail, openTeamsTestFile, type TeamsApi, teamsApi, UNKNOWN_ID } from "./test-support.ts";

vi.mock("./permission-seam.ts", () => import("./test-seam.ts"));

let server: TestServer;
let project: TestProject;
let api: TeamsApi;
openTeamsTestFile("Invitation lists", (opened) => ({ server, project, api } = opened));

describe("GET /team-invitations", () => {
  it("lists a team's open invitations for members with $read_members and $invite_members, and for servers", async () => {
    const ada = await api.user();
    const team = await api.team("Listed", [ada.user.id]);
    const first = await api.invite("First@Example.com", { team });
    const second = await api.invite(freshEmail(), { team });
    const gone = await api.invite(freshEmail(), { team });
    await api.expire(gone.id);
    const list = await api.get(`/team-invitations?team_id=${team.id}`, ada.as);
    expect(list.status, list.text).toBe(200);
    expect(list.body.is_paginated).toBe(false);
    expect(list.body.items).toEqual([
      {
        id: first.id,
        team_id: team.id,
        team_display_name: "Listed",
        expires_at_millis: expect.any(Number),
        recipient_email: "first@example.com",
      },
      expect.objectContaining({ id: second.id }),
    ]);
    const sevenDays = 7 * 24 * 3600 * 1000;
    expect(Math.abs(list.body.items[0].expires_at_millis - (Date.now() + sevenDays))).toBeLessThan(60_000);
    expect((await api.get(`/team-invitations?team_id=${team.id}`, "server")).body.items).toHaveLength(2);

    // Reading them needs both $read_members and $invite_members (PROTOCOL-EXTRA.md §8.1), read in that order.
    for (const missing of ["$read_members", "$invite_members"]) {
      seamState.denied.clear();
      seamState.denied.add(missing);
      expectKnownError(
        await api.get(`/team-invitations?team_id=${team.id}`, ada.as),
        401,
        "TEAM_PERMISSION_REQUIRED",
        {
          team_id: team.id,
          user_id: ada.user.id,
          permission_id: missing,
        },
      );
    }
    seamState.denied.clear();
    const eve = await api.user();
    for (const teamId of [team.id, UNKNOWN_ID]) {
      expectKnownError(
        await api.get(`/team-invitations?team_id=${teamId}`, eve.as),
        404,
        "TEAM_MEMBERSHIP_NOT_FOUND",
        {
          team_id: teamId,
          user_id: eve.user.id,
        },
      );
    }
    const otherApi = teamsApi(server, await server.createProject("Other"));
    expectKnownError(
      await otherApi.get(`/team-invitations?team_id=${team.id}`, "server"),
      404,
      "TEAM_NOT_FOUND",
    );
  });

  it("lists invitations to a user's verified emails with user_id", async () => {
    const email = freshEmail();
    const unverified = freshEmail();
    const bob = await api.user({ primaryEmail: email, primaryEmailVerified: true });
    const carl = await api.user({ primaryEmail: unverified });
    const mine = await api.invite(email);
    await api.invite(unverified);
    const list = await api.get("/team-invitations?user_id=me", bob.as);
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([mine.id]);
    expect((await api.get("/team-invitations?user_id=me", carl.as)).body.items).toEqual([]);
    expect((await api.get(`/team-invitations?user_id=${bob.user.id}`, "server")).body.items).toHaveLength(1);
    expectKnownError(
      await api.get(`/team-invitations?user_id=${carl.user.id}`, bob.as),
      400,
      "CANNOT_GET_OWN_USER_WITHOUT_USER",
    );
    expect((await api.get(`/team-invitations?user_id=${bob.user.id}`, bob.as)).body.items).toHaveLength(1);
    expectKnownError(
      await api.get("/team-invitations?user_id=me", "client-anonymous"),
      400,
      "CANNOT_GET_OWN_USER_WITHOUT_USER",
    );
  });

  it("needs exactly one of team_id and user_id", async () => {
    const ada = await api.user();
    const team = await api.team("Either", [ada.user.id]);
    for (const caller of ["server", ada.as] as const) {
      expectPlain(await api.get("/team-invitations", caller), 400, "Must specify either team_id or user_id");
      expectPlain(
        await api.get(`/team-invitations?team_id=${team.id}&user_id=me`, caller),
        400,
        "Cannot specify both team_id and user_id",
      );
    }
  });
});

describe("DELETE /team-invitations/:id", () => {
  it("revokes for members with $remove_members, only within the named team", async () => {
    const ada = await api.user();
    const team = await api.team("Revoking", [ada.user.id]);
    const { id } = await api.invite(freshEmail(), { team });
    const elsewhere = await api.team("Elsewhere", [ada.user.id]);
    expectKnownError(
      await api.del(`/team-invitations/${id}?team_id=${elsewhere.id}`, ada.as),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );
    seamState.denied.add("$remove_members");
    expectKnownError(
      await api.del(`/team-invitations/${id}?team_id=${team.id}`, ada.as),
      401,
      "TEAM_PERMISSION_REQUIRED",
      { team_id: team.id, user_id: ada.user.id, permission_id: "$remove_members" },
    );
    seamState.denied.clear();
    // $invite_members is for sending; revoking is removing a member-to-be.
    seamState.denied.add("$invite_members");
    const eve = await api.user();
    expectKnownError(
      await api.del(`/team-invitations/${id}?team_id=${team.id}`, eve.as),
      404,
      "TEAM_MEMBERSHIP_NOT_FOUND",
    );
    expect((await api.del(`/team-invitations/${id}?team_id=${team.id}`, ada.as)).body).toEqual({
      success: true,
    });
    expectKnownError(
      await api.del(`/team-invitations/${id}?team_id=${team.id}`, ada.as),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );
    expectKnownError(
      await api.del(`/team-invitations/not-a-uuid?team_id=${team.id}`, "server"),
      400,
      "SCHEMA_ERROR",
    );
    for (const caller of ["server", ada.as] as const) {
      expectPlain(
        await api.del(`/team-invitations/${id}`, caller),
        400,
        "team_id is required for deleting a team invitation",
      );
    }
  });
});

describe("POST /team-invitations/:id/accept", () => {
  it("lets the invitee with a verified matching email join, once", async () => {
    const email = freshEmail();
    const { team, id } = await api.invite(email);
    const bob = await api.user({ primaryEmail: email, primaryEmailVerified: true });
    const accepted = await api.post(`/team-invitations/${id}/accept?user_id=me`, bob.as);
    expect(accepted).toMatchObject({ status: 200, body: {} });
    expect(seamState.grants).toEqual([
      expect.objectContaining({ teamId: team.id, userId: bob.user.id, kind: "member" }),
    ]);
    expect((await api.get("/teams?user_id=me", bob.as)).body.items.map((t: { id: string }) => t.id)).toEqual([
      team.id,
    ]);
    expectKnownError(
      await api.post(`/team-invitations/${id}/accept?user_id=me`, bob.as),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );
  });

  it("refuses other and unverified emails, expired and unknown invitations alike", async () => {
    const email = freshEmail();
    const { id, code } = await api.invite(email);
    const other = await api.user({ primaryEmail: freshEmail(), primaryEmailVerified: true });
    const unverified = await api.user({ primaryEmail: email });
    expectKnownError(
      await api.post(`/team-invitations/${id}/accept?user_id=me`, other.as),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );
    expectKnownError(
      await api.post(`/team-invitations/${id}/accept?user_id=me`, unverified.as),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );
    expectKnownError(
      await api.post(`/team-invitations/${UNKNOWN_ID}/accept?user_id=me`, other.as),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );
    expectKnownError(await api.post(`/team-invitations/${id}/accept`, other.as), 400, "SCHEMA_ERROR");
    expectKnownError(
      await api.post(`/team-invitations/${id}/accept?user_id=${other.user.id}`, unverified.as),
      400,
      "CANNOT_GET_OWN_USER_WITHOUT_USER",
    );

    // A server may accept on behalf of a user, still only for that user's verified emails.
    const invitee = await api.user({ primaryEmail: freshEmail(), primaryEmailVerified: true });
    expectKnownError(
      await api.post(`/team-invitations/${id}/accept?user_id=${invitee.user.id}`, "server"),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );
    expectKnownError(
      await api.post(`/team-invitations/${id}/accept?user_id=${UNKNOWN_ID}`, "server"),
      404,
      "USER_NOT_FOUND",
    );

    await api.expire(id);
    const owner = await api.user({ primaryEmail: `owner-${email}`, primaryEmailVerified: true });
    await server.deps.db
      .update(teamInvitations)
      .set({ recipientEmail: `owner-${email}` })
      .where(eq(teamInvitations.id, id));
    expectKnownError(
      await api.post(`/team-invitations/${id}/accept?user_id=me`, owner.as),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );
    expectKnownError(
      await api.post("/team-invitations/accept", owner.as, { code }),
      400,
      "VERIFICATION_CODE_EXPIRED",
    );
  });

  it("does not reach into another project", async () => {
    const email = freshEmail();
    const { id } = await api.invite(email);
    const otherApi = teamsApi(server, await server.createProject("Other"));
    const twin = await otherApi.user({ primaryEmail: email, primaryEmailVerified: true });
    expectKnownError(
      await otherApi.post(`/team-invitations/${id}/accept?user_id=me`, twin.as),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );
    expect((await otherApi.get("/team-invitations?user_id=me", twin.as)).body.items).toEqual([]);
  });
});
