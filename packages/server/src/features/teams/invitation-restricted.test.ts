/**
 * PROTOCOL-EXTRA.md §8.1: reading an invitation's details or accepting it needs a signed-in user who is not
 * restricted; here restricted by an unverified email on a project that requires verification, sent as the SDK
 * sends it (`x-stack-allow-restricted-user: true`, `user_id=me`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { freshEmail, type TeamsApi, teamsApi } from "./test-support.ts";

let server: TestServer;
let project: TestProject;
let api: TeamsApi;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Restricted invitees");
  await project.configure({ "onboarding.requireEmailVerification": true });
  api = teamsApi(server, project);
});
afterAll(() => server.close());

const RESTRICTED = { restricted_reason: { type: "email_not_verified" } };

/** A user whose primary email is not verified, calling as the SDK does for restricted users. */
async function restrictedInvitee(email: string) {
  const created = await api.user({ primaryEmail: email });
  return {
    ...created,
    as: { token: created.accessToken, headers: { "x-stack-allow-restricted-user": "true" } },
  };
}

describe("the code routes", () => {
  it("refuse a restricted user's details and accept with 403, and leave the code usable", async () => {
    const email = freshEmail();
    const { team, code } = await api.invite(email);
    const carl = await restrictedInvitee(email);
    for (const path of ["/team-invitations/accept/details", "/team-invitations/accept"]) {
      expectKnownError(
        await api.post(path, carl.as, { code }),
        403,
        "TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED",
        RESTRICTED,
      );
    }
    // check-code needs no user at all.
    expect((await api.post("/team-invitations/accept/check-code", carl.as, { code })).body).toEqual({
      is_code_valid: true,
    });
    const verified = await api.user({ primaryEmail: freshEmail(), primaryEmailVerified: true });
    expect((await api.post("/team-invitations/accept/details", verified.as, { code })).body).toEqual({
      team_id: team.id,
      team_display_name: team.display_name,
    });
  });

  it("need a user for details as for accept", async () => {
    const { code } = await api.invite(freshEmail());
    for (const path of ["/team-invitations/accept/details", "/team-invitations/accept"]) {
      expectKnownError(
        await api.post(path, "client-anonymous", { code }),
        401,
        "USER_AUTHENTICATION_REQUIRED",
      );
    }
  });
});

describe("POST /team-invitations/:id/accept", () => {
  it("refuses a restricted client user before looking at the invitation", async () => {
    const email = freshEmail();
    const { id } = await api.invite(email);
    const carl = await restrictedInvitee(email);
    expectKnownError(
      await api.post(`/team-invitations/${id}/accept?user_id=me`, carl.as),
      403,
      "TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED",
      RESTRICTED,
    );
    expectKnownError(
      await api.post("/team-invitations/00000000-0000-4000-8000-000000000000/accept?user_id=me", carl.as),
      403,
      "TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED",
    );
    // Naming someone else is refused first.
    const other = await api.user();
    expectKnownError(
      await api.post(`/team-invitations/${id}/accept?user_id=${other.user.id}`, carl.as),
      400,
      "CANNOT_GET_OWN_USER_WITHOUT_USER",
    );
  });
});
