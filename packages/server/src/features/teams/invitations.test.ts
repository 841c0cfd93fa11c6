import { describe, expect, it, vi } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { codeFromEmail, emailsTo, latestEmailTo } from "../../testing/outbox.ts";
import { seamState } from "./test-seam.ts";
import {
  CALLBACK,
  freshEmail,
  openTeamsTestFile,
  type TeamsApi,
  teamsApi,
  UNKNOWN_ID,
} from "./test-support.ts";

vi.mock("./permission-seam.ts", () => import("./test-seam.ts"));

let server: TestServer;
let project: TestProject;
let api: TeamsApi;
openTeamsTestFile("Invitations", (opened) => ({ server, project, api } = opened));

describe("POST /team-invitations/send-code", () => {
  it("emails a link carrying the code to the invitee, sent by a member with $invite_members", async () => {
    const ada = await api.user();
    const team = await api.team("Apollo", [ada.user.id]);
    const email = freshEmail();
    const sent = await api.post("/team-invitations/send-code", ada.as, {
      team_id: team.id,
      email: email.toUpperCase(),
      callback_url: `${CALLBACK}?from=mail`,
    });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toEqual({ success: true, id: expect.any(String) });
    const mail = await latestEmailTo(server, project.id, email);
    expect(mail.kind).toBe("team_invitation");
    expect(mail.subject).toContain("Apollo");
    expect(mail.text).toContain(`${CALLBACK}?from=mail&code=`);
    expect(codeFromEmail(mail.text)).toHaveLength(45);
  });

  it("refuses untrusted callbacks, bad bodies, non-members, members without $invite_members and unknown teams", async () => {
    const ada = await api.user();
    const eve = await api.user();
    const team = await api.team("Guarded", [ada.user.id]);
    const email = freshEmail();
    const body = { team_id: team.id, email, callback_url: CALLBACK };
    for (const callback of ["https://evil.example.org/cb", "javascript:alert(1)", "//evil.example.org"]) {
      expectKnownError(
        await api.post("/team-invitations/send-code", ada.as, { ...body, callback_url: callback }),
        400,
        "REDIRECT_URL_NOT_WHITELISTED",
      );
    }
    for (const bad of [
      { ...body, email: "not-an-email" },
      { team_id: team.id, email },
      { ...body, extra: 1 },
    ]) {
      expectKnownError(await api.post("/team-invitations/send-code", ada.as, bad), 400, "SCHEMA_ERROR");
    }
    expectKnownError(
      await api.post("/team-invitations/send-code", eve.as, body),
      404,
      "TEAM_MEMBERSHIP_NOT_FOUND",
      {
        team_id: team.id,
        user_id: eve.user.id,
      },
    );
    seamState.denied.add("$invite_members");
    expectKnownError(
      await api.post("/team-invitations/send-code", ada.as, body),
      401,
      "TEAM_PERMISSION_REQUIRED",
      {
        team_id: team.id,
        user_id: ada.user.id,
        permission_id: "$invite_members",
      },
    );
    // The server needs no permission.
    expect((await api.post("/team-invitations/send-code", "server", body)).status).toBe(200);
    expectKnownError(
      await api.post("/team-invitations/send-code", "server", { ...body, team_id: UNKNOWN_ID }),
      404,
      "TEAM_NOT_FOUND",
    );
    expect(await emailsTo(server, project.id, email)).toHaveLength(1);
  });

  it("accepts callbacks on the project's trusted domains", async () => {
    await project.configure({ "domains.trustedDomains.app": { baseUrl: "https://app.example.com" } });
    const team = await api.team("Trusted");
    const sent = await api.post("/team-invitations/send-code", "server", {
      team_id: team.id,
      email: freshEmail(),
      callback_url: "https://app.example.com/join",
    });
    expect(sent.status, sent.text).toBe(200);
  });
});

describe("accepting with the emailed code", () => {
  it("checks, shows the details of, and uses the code, once", async () => {
    const email = freshEmail();
    const { team, code } = await api.invite(email);
    const bob = await api.user({ primaryEmail: email });
    const check = await api.post("/team-invitations/accept/check-code", "client-anonymous", { code });
    expect(check).toMatchObject({ status: 200, body: { is_code_valid: true } });
    const details = await api.post("/team-invitations/accept/details", bob.as, { code });
    expect(details.body).toEqual({ team_id: team.id, team_display_name: "Rocket" });

    const accepted = await api.post("/team-invitations/accept", bob.as, { code });
    expect(accepted).toMatchObject({ status: 200, body: {} });
    expect(seamState.grants).toEqual([
      expect.objectContaining({ teamId: team.id, userId: bob.user.id, kind: "member" }),
    ]);
    expect((await api.get(`/teams/${team.id}`, bob.as)).status).toBe(200);
    expect((await api.get(`/team-invitations?team_id=${team.id}`, "server")).body.items).toEqual([]);

    for (const path of [
      "/team-invitations/accept",
      "/team-invitations/accept/check-code",
      "/team-invitations/accept/details",
    ]) {
      expectKnownError(await api.post(path, bob.as, { code }), 409, "VERIFICATION_CODE_ALREADY_USED");
    }
  });

  it("is a no-op for someone who already is a member", async () => {
    const ada = await api.user();
    const team = await api.team("Already", [ada.user.id]);
    const { code } = await api.invite(freshEmail(), { team });
    seamState.grants.length = 0;
    expect((await api.post("/team-invitations/accept", ada.as, { code })).body).toEqual({});
    expect(seamState.grants).toEqual([]);
    const members = await api.get(`/team-member-profiles?team_id=${team.id}`, "server");
    expect(members.body.items).toHaveLength(1);
  });

  it("needs a signed-in, unrestricted user and leaves the code usable otherwise", async () => {
    const { code } = await api.invite(freshEmail());
    expectKnownError(
      await api.post("/team-invitations/accept", "client-anonymous", { code }),
      401,
      "USER_AUTHENTICATION_REQUIRED",
    );
    const anonymous = await api.user({ isAnonymous: true });
    expectKnownError(
      await api.post(
        "/team-invitations/accept",
        { ...anonymous.as, headers: { "x-stack-allow-anonymous-user": "true" } },
        { code },
      ),
      403,
      "TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED",
      { restricted_reason: { type: "anonymous" } },
    );
    expect((await api.post("/team-invitations/accept/check-code", "server", { code })).body).toEqual({
      is_code_valid: true,
    });
  });

  it("refuses malformed, unknown, expired and other projects' codes", async () => {
    const ada = await api.user();
    for (const code of ["short", "x".repeat(46), 45]) {
      expectKnownError(await api.post("/team-invitations/accept", ada.as, { code }), 400, "SCHEMA_ERROR");
    }
    expectKnownError(await api.post("/team-invitations/accept", ada.as, {}), 400, "SCHEMA_ERROR");
    expectKnownError(
      await api.post("/team-invitations/accept/check-code", ada.as, { code: "a".repeat(45) }),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );

    const { id, code } = await api.invite(freshEmail());
    const otherApi = teamsApi(server, await server.createProject("Other"));
    const stranger = await otherApi.user();
    expectKnownError(
      await otherApi.post("/team-invitations/accept", stranger.as, { code }),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );

    await api.expire(id);
    for (const path of [
      "/team-invitations/accept",
      "/team-invitations/accept/check-code",
      "/team-invitations/accept/details",
    ]) {
      expectKnownError(await api.post(path, ada.as, { code }), 400, "VERIFICATION_CODE_EXPIRED");
    }
  });

  it("stops working when the invitation is revoked or its team deleted", async () => {
    const ada = await api.user();
    const revoked = await api.invite(freshEmail());
    expect(
      (await api.del(`/team-invitations/${revoked.id}?team_id=${revoked.team.id}`, "server")).body,
    ).toEqual({
      success: true,
    });
    expectKnownError(
      await api.post("/team-invitations/accept", ada.as, { code: revoked.code }),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );

    const orphan = await api.invite(freshEmail());
    expect((await api.del(`/teams/${orphan.team.id}`, "server")).status).toBe(200);
    expectKnownError(
      await api.post("/team-invitations/accept/details", ada.as, { code: orphan.code }),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );
  });
});
