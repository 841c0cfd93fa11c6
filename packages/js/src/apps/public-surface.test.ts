import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInOverHttp } from "../../../server/src/features/oauth/test-support.ts";
import { appsFor, uniqueEmail } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";
import { GatehouseClientApp } from "./client-app.ts";

/**
 * Public SDK methods that no flow test reached: each is called against the real server here and its effect read
 * back through another app or the raw API.
 */
const PASSWORD = "correct horse battery";
let gh: RunningGatehouse;
let project: Awaited<ReturnType<RunningGatehouse["createProject"]>>;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  gh = await startGatehouse();
  project = await gh.createProject("Public surface");
  apps = appsFor(gh, project);
  const admin = await apps.admin().getProject();
  await admin.updateConfig({
    "auth.oauth.providers.github": { isShared: false, clientId: "MOCK", clientSecret: "MOCK" },
  });
});
afterAll(() => gh?.close());

async function signedUp(email = uniqueEmail("surface")) {
  const app = apps.client();
  const result = await app.signUpWithCredential({ email, password: PASSWORD, noVerificationCallback: true });
  if (result.status !== "ok") throw result.error;
  return { app, email, user: await app.getUser({ or: "throw" }) };
}

/** `GET /users/me` with nothing but the given headers, as a backend receiving them would call it. */
async function meWith(headers: Record<string, string>) {
  return fetch(`${gh.baseUrl}/api/v1/users/me`, {
    headers: {
      "x-stack-project-id": project.id,
      "x-stack-access-type": "server",
      "x-stack-secret-server-key": project.keys.secretServerKey,
      ...headers,
    },
  });
}

describe("handing the session to a backend", () => {
  it("getAuthHeaders and getAuthorizationHeader carry tokens a server app reads back as the same user", async () => {
    const { app, user } = await signedUp();
    const headers = await app.getAuthHeaders();
    const authorization = await app.getAuthorizationHeader();
    expect(authorization).toMatch(/^Bearer stackauth_/);

    const server = apps.server();
    const fromHeader = await server.getUser({ tokenStore: { headers } });
    const fromAuthorization = await server.getUser({
      tokenStore: { headers: { authorization: authorization! } },
    });
    expect(fromHeader?.id).toBe(user.id);
    expect(fromAuthorization?.id).toBe(user.id);

    const accessToken = JSON.parse(headers["x-stack-auth"]).accessToken as string;
    const me = await meWith({ "x-stack-access-token": accessToken });
    expect(((await me.json()) as { id: string }).id).toBe(user.id);
  });

  it("getAuthorizationHeader is null when signed out, and the headers hold no tokens", async () => {
    const app = apps.client();
    expect(await app.getAuthorizationHeader()).toBeNull();
    expect(JSON.parse((await app.getAuthHeaders())["x-stack-auth"])).toEqual({
      accessToken: null,
      refreshToken: null,
    });
  });
});

describe("server user setters", () => {
  it("setServerMetadata, setClientReadOnlyMetadata and setPrimaryEmail change what the server stores", async () => {
    const { user } = await signedUp();
    const server = apps.server();
    const serverUser = (await server.getUser(user.id))!;
    await serverUser.setServerMetadata({ plan: "pro" });
    await serverUser.setClientReadOnlyMetadata({ seats: 3 });
    const newEmail = uniqueEmail("moved");
    await serverUser.setPrimaryEmail(newEmail, { verified: true });

    const reread = (await apps.server().getUser(user.id))!;
    expect(reread.serverMetadata).toEqual({ plan: "pro" });
    expect(reread.clientReadOnlyMetadata).toEqual({ seats: 3 });
    expect(reread.primaryEmail).toBe(newEmail);
    expect(reread.primaryEmailVerified).toBe(true);
  });

  it("setClientMetadata on the current user is visible to the server", async () => {
    const { user } = await signedUp();
    await user.setClientMetadata({ theme: "dark" });
    expect((await apps.server().getUser(user.id))?.clientMetadata).toEqual({ theme: "dark" });
  });

  it("setPassword gives a password to a user who had none, who then signs in with it", async () => {
    const email = uniqueEmail("passwordless");
    const created = await apps.server().createUser({ primaryEmail: email, primaryEmailAuthEnabled: true });
    const session = await created.createSession({ expiresInMillis: 60_000 });
    const tokens = await session.getTokens();
    const app = apps.client({
      tokenStore: { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken },
    });
    const user = (await app.getUser({ or: "throw" }))!;
    expect(await user.setPassword({ password: "a fresh passphrase 7" })).toBeUndefined();
    const other = apps.client();
    expect((await other.signInWithCredential({ email, password: "a fresh passphrase 7" })).status).toBe("ok");
  });
});

describe("teams and connections", () => {
  it("getTeamProfile reads and updates the user's profile in a team", async () => {
    const { user } = await signedUp();
    const team = await apps.server().createTeam({ displayName: "Profiles", creatorUserId: user.id });
    const profile = await user.getTeamProfile(team);
    await profile.update({ displayName: "Ada at Profiles" });
    expect((await user.getTeamProfile(team)).displayName).toBe("Ada at Profiles");
    const members = await (await apps.server().getTeam(team.id))!.listUsers();
    expect(members.find((member) => member.id === user.id)?.teamProfile.displayName).toBe("Ada at Profiles");
  });

  it("getOAuthProvider finds the connection a user signed in with, and null for an unknown id", async () => {
    const email = uniqueEmail("octo");
    const session = await signInOverHttp(gh.baseUrl, project, email);
    const app = apps.client({
      tokenStore: { accessToken: session.accessToken, refreshToken: session.refreshToken },
    });
    const user = (await app.getUser({ or: "throw" }))!;
    const [listed] = await user.listOAuthProviders();
    const found = await user.getOAuthProvider(listed!.id);
    expect(found).toMatchObject({ id: listed!.id, type: "github", userId: user.id });
    expect(await user.getOAuthProvider("00000000-0000-4000-8000-000000000000")).toBeNull();
  });
});

describe("the project", () => {
  it("watchProject delivers the project the server has, and tells subscribers once it arrives", async () => {
    const watch = apps.client().watchProject();
    expect(watch.getSnapshot()).toEqual({ status: "pending" });
    let notified = 0;
    const unsubscribe = watch.subscribe(() => {
      notified++;
    });
    expect((await watch.get()).id).toBe(project.id);
    const snapshot = watch.getSnapshot();
    expect(snapshot.status === "ok" ? snapshot.data.id : null).toBe(project.id);
    expect(notified).toBeGreaterThan(0);
    unsubscribe();
  });

  it("resetConfigOverrideKeys removes an environment override, back to the default", async () => {
    const admin = await apps.admin().getProject();
    await admin.updateConfig({ "teams.allowClientTeamCreation": true });
    expect((await apps.admin().getProject()).config.clientTeamCreationEnabled).toBe(true);
    await admin.resetConfigOverrideKeys("environment", ["teams.allowClientTeamCreation"]);
    expect(
      (
        await new GatehouseClientApp({
          projectId: project.id,
          baseUrl: gh.baseUrl,
          publishableClientKey: project.keys.publishableClientKey,
          tokenStore: "memory",
          noAutomaticPrefetch: true,
        }).getProject()
      ).config.clientTeamCreationEnabled,
    ).toBe(false);
  });
});

describe("redirects", () => {
  it("every redirectTo… method navigates to the handler URL the app was configured with", async () => {
    const visited: string[] = [];
    const app = apps.client({
      redirectMethod: { navigate: (to) => visited.push(to) },
      urls: { handler: "/auth", home: "/home" },
      // A redirect holds its caller for a while after navigating (so app code stops there); not in this test.
      runtime: { sleep: async () => {} },
    });
    const methods = [
      "redirectToSignIn",
      "redirectToSignUp",
      "redirectToSignOut",
      "redirectToForgotPassword",
      "redirectToPasswordReset",
      "redirectToEmailVerification",
      "redirectToMagicLinkCallback",
      "redirectToOAuthCallback",
      "redirectToTeamInvitation",
      "redirectToMfa",
      "redirectToError",
      "redirectToCliAuthConfirm",
      "redirectToAccountSettings",
      "redirectToHome",
      "redirectToAfterSignIn",
      "redirectToAfterSignUp",
      "redirectToAfterSignOut",
    ] as const;
    for (const name of methods) await (app[name] as () => Promise<void>)();
    expect(visited).toHaveLength(methods.length);
    for (const target of visited) expect(target).toMatch(/^\/(auth|home)/);
    expect(visited[0]).toMatch(/^\/auth\/sign-in/);
    expect(visited[1]).toMatch(/^\/auth\/sign-up/);
  });
});
