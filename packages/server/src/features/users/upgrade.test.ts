/**
 * Anonymous users becoming full accounts, by password sign-up and by email code, and parallel changes of a user's
 * primary email.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { uniqueEmail } from "../../testing/known-errors.ts";
import { codeFromEmail, latestEmailTo } from "../../testing/outbox.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { teamPermissionGrants } from "../permissions/schema.ts";
import { teamMembers, teams } from "../teams/schema.ts";
import { findUser } from "./service.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Upgrades");
  await project.configure({ "teams.createPersonalTeamOnSignUp": true, "auth.otp.allowSignIn": true });
});
afterAll(() => server.close());

const PASSWORD = "correct horse battery";

const post = (target: TestProject, path: string, body: unknown, accessToken?: string) =>
  server.request(`/api/v1${path}`, {
    method: "POST",
    headers: target.headers(
      "client",
      accessToken ? { "x-stack-access-token": accessToken, "x-stack-allow-anonymous-user": "true" } : {},
    ),
    body,
  });

async function anonymous(target: TestProject) {
  const response = await post(target, "/auth/anonymous/sign-up", {});
  expect(response.status, response.text).toBe(200);
  return { userId: response.body.user_id as string, accessToken: response.body.access_token as string };
}

async function signUpWithCode(target: TestProject, email: string, accessToken?: string) {
  const sent = await post(
    target,
    "/auth/otp/send-sign-in-code",
    { email, callback_url: "http://localhost:3000/handler/magic-link-callback" },
    accessToken,
  );
  expect(sent.status, sent.text).toBe(200);
  const code = codeFromEmail((await latestEmailTo(server, target.id, email)).text);
  return post(target, "/auth/otp/sign-in", { code }, accessToken);
}

async function channelsOf(projectId: string, userId: string) {
  return server.deps.db
    .select()
    .from(contactChannels)
    .where(and(eq(contactChannels.projectId, projectId), eq(contactChannels.userId, userId)));
}

async function teamsOf(projectId: string, userId: string) {
  return server.deps.db
    .select({ id: teams.id, displayName: teams.displayName })
    .from(teamMembers)
    .innerJoin(teams, and(eq(teams.projectId, teamMembers.projectId), eq(teams.id, teamMembers.teamId)))
    .where(and(eq(teamMembers.projectId, projectId), eq(teamMembers.userId, userId)));
}

async function grantsOf(projectId: string, teamId: string, userId: string) {
  const rows = await server.deps.db
    .select({ permissionId: teamPermissionGrants.permissionId })
    .from(teamPermissionGrants)
    .where(
      and(
        eq(teamPermissionGrants.projectId, projectId),
        eq(teamPermissionGrants.teamId, teamId),
        eq(teamPermissionGrants.userId, userId),
      ),
    );
  return rows.map((row) => row.permissionId);
}

/** Each contact channel of the user as [value, primary, used for auth, verified]. */
const channelSummary = async (projectId: string, userId: string) =>
  (await channelsOf(projectId, userId)).map((c) => [c.value, c.isPrimary, c.usedForAuth, c.isVerified]);

describe("anonymous upgrade", () => {
  it("gives a password sign-up the personal team a fresh sign-up would get", async () => {
    const anon = await anonymous(project);
    const email = uniqueEmail("password");
    const response = await post(
      project,
      "/auth/password/sign-up",
      { email, password: PASSWORD },
      anon.accessToken,
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.user_id).toBe(anon.userId);

    const user = await findUser(server.deps.db, project.id, anon.userId);
    expect(user).toMatchObject({ isAnonymous: false, otpAuthEnabled: false });
    const [team] = await teamsOf(project.id, anon.userId);
    expect(team?.displayName).toBe(`${email}'s Team`);
    expect(user?.selectedTeamId).toBe(team!.id);
    expect(await grantsOf(project.id, team!.id, anon.userId)).toEqual(["team_admin"]);
    expect(await channelSummary(project.id, anon.userId)).toEqual([[email, true, true, false]]);
  });

  it("gives an email-code sign-up a verified address, code sign-in and the personal team", async () => {
    const anon = await anonymous(project);
    const email = uniqueEmail("code");
    const response = await signUpWithCode(project, email, anon.accessToken);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ user_id: anon.userId, is_new_user: true });

    expect(await findUser(server.deps.db, project.id, anon.userId)).toMatchObject({
      isAnonymous: false,
      otpAuthEnabled: true,
      passwordHash: null,
    });
    const [team] = await teamsOf(project.id, anon.userId);
    expect(await grantsOf(project.id, team!.id, anon.userId)).toEqual(["team_admin"]);
    expect(await channelSummary(project.id, anon.userId)).toEqual([[email, true, true, true]]);
  });

  it("makes no team when the project does not ask for one", async () => {
    const plain = await server.createProject("No personal teams");
    const anon = await anonymous(plain);
    const response = await post(
      plain,
      "/auth/password/sign-up",
      { email: uniqueEmail(), password: PASSWORD },
      anon.accessToken,
    );
    expect(response.status, response.text).toBe(200);
    expect(await teamsOf(plain.id, anon.userId)).toEqual([]);
    expect((await findUser(server.deps.db, plain.id, anon.userId))?.selectedTeamId).toBeNull();
  });

  it("promotes a channel the anonymous user already had instead of duplicating it", async () => {
    const email = uniqueEmail("existing");
    const other = uniqueEmail("other");
    const { user, accessToken } = await createSignedInUser(server, project.id, {
      isAnonymous: true,
      primaryEmail: other,
      primaryEmailAuthEnabled: false,
    });
    const added = await server.request("/api/v1/contact-channels", {
      method: "POST",
      headers: project.headers("server"),
      body: { user_id: user.id, type: "email", value: email, used_for_auth: false, is_verified: false },
    });
    expect(added.status, added.text).toBe(201);

    const response = await signUpWithCode(project, email, accessToken);
    expect(response.status, response.text).toBe(200);
    const channels = await channelsOf(project.id, user.id);
    expect(
      channels
        .map((c) => [c.value, c.isPrimary, c.usedForAuth, c.isVerified] as const)
        .sort((a, b) => a[0].localeCompare(b[0])),
    ).toEqual([
      [email, true, true, true],
      [other, false, false, false],
    ]);
  });

  it("keeps a team the anonymous user had selected", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id, { isAnonymous: true });
    const team = await server.request("/api/v1/teams", {
      method: "POST",
      headers: project.headers("server"),
      body: { display_name: "Picked", creator_user_id: user.id },
    });
    expect(team.status, team.text).toBe(201);
    const selected = await server.request(`/api/v1/users/${user.id}`, {
      method: "PATCH",
      headers: project.headers("server"),
      body: { selected_team_id: team.body.id },
    });
    expect(selected.status, selected.text).toBe(200);

    const response = await post(
      project,
      "/auth/password/sign-up",
      { email: uniqueEmail(), password: PASSWORD },
      accessToken,
    );
    expect(response.status, response.text).toBe(200);
    expect((await teamsOf(project.id, user.id)).length).toBe(2);
    expect((await findUser(server.deps.db, project.id, user.id))?.selectedTeamId).toBe(team.body.id);
  });

  it("upgrades once when two sign-ups race with one anonymous token", async () => {
    const anon = await anonymous(project);
    const emails = [uniqueEmail("race"), uniqueEmail("race")];
    const responses = await Promise.all(
      emails.map((email) => signUpWithCode(project, email, anon.accessToken)),
    );
    // Either the second finds the user upgraded (409), or it ran after the first and, no longer anonymous, made
    // a new account; never two auth emails or two personal teams on one user.
    expect(responses.map((r) => r.status).filter((s) => s !== 200 && s !== 409)).toEqual([]);
    expect(responses.filter((r) => r.body?.user_id === anon.userId)).toHaveLength(1);
    expect((await channelsOf(project.id, anon.userId)).filter((c) => c.usedForAuth)).toHaveLength(1);
    expect(await teamsOf(project.id, anon.userId)).toHaveLength(1);
  });
});

describe("primary email changes", () => {
  it("applies parallel changes one after the other", async () => {
    const { user } = await createSignedInUser(server, project.id, { primaryEmail: uniqueEmail("parallel") });
    const emails = Array.from({ length: 6 }, () => uniqueEmail("parallel"));
    const responses = await Promise.all(
      emails.map((email) =>
        server.request(`/api/v1/users/${user.id}`, {
          method: "PATCH",
          headers: project.headers("server"),
          body: { primary_email: email },
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(emails.map(() => 200));
    const channels = await channelsOf(project.id, user.id);
    expect(channels.filter((c) => c.isPrimary)).toHaveLength(1);
    expect(channels).toHaveLength(7);
  });
});
