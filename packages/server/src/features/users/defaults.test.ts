/**
 * What users get without asking, as on the reference platform (issues 18 and 35): the personal team on every sign-up
 * path when `teams.createPersonalTeamOnSignUp` is on (anonymous users included, PROTOCOL.md §3.2 and its anonymous
 * example with a selected team) but never for a server's `POST /users`, that team renamed when an anonymous user signs up, empty display
 * names stored as null, and `would_work_if_email_was_verified` false outside email-code sign-in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { uniqueEmail } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";

let server: TestServer;
let withTeams: TestProject;
let plain: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  withTeams = await server.createProject("Personal teams");
  await withTeams.configure({ "teams.createPersonalTeamOnSignUp": true });
  plain = await server.createProject("No personal teams");
});
afterAll(() => server.close());

const PASSWORD = "correct horse battery";

const createUser = (target: TestProject, body: unknown) =>
  server.request("/api/v1/users", { method: "POST", headers: target.headers("server"), body });

async function teamsOf(target: TestProject, userId: string) {
  const response = await server.request(`/api/v1/teams?user_id=${userId}`, {
    headers: target.headers("server"),
  });
  expect(response.status, response.text).toBe(200);
  return (response.body.items as { id: string; display_name: string }[]).map(({ id, display_name }) => ({
    id,
    display_name,
  }));
}

async function anonymousSignUp(target: TestProject) {
  const response = await server.request("/api/v1/auth/anonymous/sign-up", {
    method: "POST",
    headers: target.headers("client"),
  });
  expect(response.status, response.text).toBe(200);
  return { userId: response.body.user_id as string, accessToken: response.body.access_token as string };
}

const asAnonymous = (target: TestProject, accessToken: string) =>
  target.headers("client", { "x-stack-access-token": accessToken, "x-stack-allow-anonymous-user": "true" });

const passwordSignUp = (target: TestProject, email: string, accessToken?: string) =>
  server.request("/api/v1/auth/password/sign-up", {
    method: "POST",
    headers: accessToken ? asAnonymous(target, accessToken) : target.headers("client"),
    body: { email, password: PASSWORD },
  });

const patchUser = (target: TestProject, userId: string, body: unknown) =>
  server.request(`/api/v1/users/${userId}`, { method: "PATCH", headers: target.headers("server"), body });

describe("personal teams", () => {
  it("never go to users a server creates with POST /users, whatever the config (the reference's selected_team: null)", async () => {
    for (const target of [plain, withTeams]) {
      for (const body of [
        { display_name: "Ada", primary_email: uniqueEmail("server") },
        { is_anonymous: true },
      ]) {
        const created = await createUser(target, body);
        expect(created.status, created.text).toBe(201);
        expect(created.body).toMatchObject({ selected_team: null, selected_team_id: null });
        expect(await teamsOf(target, created.body.id)).toEqual([]);
      }
    }
  });

  it("go to anonymous users too, and are renamed, not replaced, when they sign up", async () => {
    const anon = await anonymousSignUp(withTeams);
    const me = await server.request("/api/v1/users/me", {
      headers: asAnonymous(withTeams, anon.accessToken),
    });
    expect(me.body.selected_team).toMatchObject({ display_name: "Personal Team" });
    const [team] = await teamsOf(withTeams, anon.userId);
    expect(team?.display_name).toBe("Personal Team");

    const email = uniqueEmail("upgraded");
    const signedUp = await passwordSignUp(withTeams, email, anon.accessToken);
    expect(signedUp.status, signedUp.text).toBe(200);
    expect(signedUp.body.user_id).toBe(anon.userId);
    expect(await teamsOf(withTeams, anon.userId)).toEqual([
      { id: team!.id, display_name: `${email}'s Team` },
    ]);
    // The creator's default permission came with the team when the anonymous user was created.
    const grants = await server.request(
      `/api/v1/team-permissions?team_id=${team!.id}&user_id=${anon.userId}`,
      {
        headers: withTeams.headers("server"),
      },
    );
    expect(grants.body.items.map((item: { id: string }) => item.id)).toEqual(["team_admin"]);
  });

  it("are renamed when a server upgrades an anonymous user", async () => {
    const { user } = await createSignedInUser(server, withTeams.id, { isAnonymous: true });
    const [team] = await teamsOf(withTeams, user.id);
    const upgraded = await patchUser(withTeams, user.id, { is_anonymous: false, display_name: "Grace" });
    expect(upgraded.status, upgraded.text).toBe(200);
    expect(upgraded.body.selected_team).toMatchObject({ id: team!.id, display_name: "Grace's Team" });
    expect(await teamsOf(withTeams, user.id)).toEqual([{ id: team!.id, display_name: "Grace's Team" }]);
    // A user who was never anonymous keeps a team called "Personal Team" as it is.
    const regular = await createSignedInUser(server, withTeams.id, {});
    const [kept] = await teamsOf(withTeams, regular.user.id);
    expect(kept?.display_name).toBe("Personal Team");
    await patchUser(withTeams, regular.user.id, { is_anonymous: false, display_name: "Linus" });
    expect(await teamsOf(withTeams, regular.user.id)).toEqual([kept]);
  });

  it("are made at sign-up for an anonymous user who has none, and not for one who renamed theirs", async () => {
    const project = await server.createProject("Turned on later");
    const early = await anonymousSignUp(project);
    expect(await teamsOf(project, early.userId)).toEqual([]);
    await project.configure({ "teams.createPersonalTeamOnSignUp": true });
    const email = uniqueEmail("late");
    expect((await passwordSignUp(project, email, early.accessToken)).status).toBe(200);
    const [made] = await teamsOf(project, early.userId);
    expect(made?.display_name).toBe(`${email}'s Team`);
    const me = await server.request(`/api/v1/users/${early.userId}`, { headers: project.headers("server") });
    expect(me.body.selected_team_id).toBe(made!.id);

    const renamer = await anonymousSignUp(project);
    const [own] = await teamsOf(project, renamer.userId);
    const renamed = await server.request(`/api/v1/teams/${own!.id}`, {
      method: "PATCH",
      headers: project.headers("server"),
      body: { display_name: "Our shop" },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect((await passwordSignUp(project, uniqueEmail("renamer"), renamer.accessToken)).status).toBe(200);
    expect(await teamsOf(project, renamer.userId)).toEqual([{ id: own!.id, display_name: "Our shop" }]);
  });
});

describe("USER_EMAIL_ALREADY_EXISTS", () => {
  it("says would_work_if_email_was_verified: false when a server creates a user with a taken address", async () => {
    for (const verified of [false, true]) {
      const email = uniqueEmail(`taken-${verified}`);
      await createSignedInUser(server, plain.id, { primaryEmail: email, primaryEmailVerified: verified });
      const response = await createUser(plain, { primary_email: email, primary_email_auth_enabled: true });
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({
        code: "USER_EMAIL_ALREADY_EXISTS",
        details: { email, would_work_if_email_was_verified: false },
      });
    }
  });
});

describe("empty display names", () => {
  it("are stored as null by server creation and both updates; a name of spaces is kept", async () => {
    const created = await createUser(plain, { display_name: "" });
    expect(created.status, created.text).toBe(201);
    expect(created.body.display_name).toBeNull();

    const { user, accessToken } = await createSignedInUser(server, plain.id, { displayName: "Ada" });
    const asClient = await server.request("/api/v1/users/me", {
      method: "PATCH",
      headers: plain.headers("client", { "x-stack-access-token": accessToken }),
      body: { display_name: "" },
    });
    expect(asClient.status, asClient.text).toBe(200);
    expect(asClient.body.display_name).toBeNull();

    await patchUser(plain, user.id, { display_name: "Ada" });
    const asServer = await patchUser(plain, user.id, { display_name: "" });
    expect(asServer.body.display_name).toBeNull();
    const read = await server.request(`/api/v1/users/${user.id}`, { headers: plain.headers("server") });
    expect(read.body.display_name).toBeNull();

    // The reference platform only drops the empty string.
    expect((await patchUser(plain, user.id, { display_name: "  " })).body.display_name).toBe("  ");
  });

  it("give a personal team named after the email, as no name would", async () => {
    const email = uniqueEmail("nameless");
    const signedUp = await passwordSignUp(withTeams, email);
    expect(signedUp.status, signedUp.text).toBe(200);
    const named = await patchUser(withTeams, signedUp.body.user_id, { display_name: "" });
    expect(named.body.display_name).toBeNull();
    expect(named.body.selected_team.display_name).toBe(`${email}'s Team`);
  });

  it("stay as given in a team member profile, which falls back to the user's name only when unset", async () => {
    const { user } = await createSignedInUser(server, plain.id, { displayName: "Ada" });
    const team = await server.request("/api/v1/teams", {
      method: "POST",
      headers: plain.headers("server"),
      body: { display_name: "Profiles", creator_user_id: user.id },
    });
    const path = `/api/v1/team-member-profiles/${team.body.id}/${user.id}`;
    const updated = await server.request(path, {
      method: "PATCH",
      headers: plain.headers("server"),
      body: { display_name: "" },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.display_name).toBe("");
  });
});
