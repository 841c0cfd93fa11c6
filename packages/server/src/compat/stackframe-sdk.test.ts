/**
 * The official SDK, unchanged, against our server: 2.8.102 (x-stack-* headers) and the latest 2.8.x
 * (x-hexclave-* headers). If these pass, an app can switch its baseUrl to Gatehouse.
 */
import * as sdk102 from "@stackframe/js";
import * as sdkLatest from "stackframe-js-latest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { devProviderEmail } from "../features/oauth/dev-provider.ts";
import { signInOverHttp } from "../features/oauth/test-support.ts";
import { uniqueEmail } from "../testing/known-errors.ts";
import { type ListeningServer, startListeningServer } from "../testing/listening-server.ts";
import { codeFromEmail, latestEmailTo } from "../testing/outbox.ts";
import { setClock, useRealClock } from "../testing/time.ts";

type Sdk = typeof sdk102;

let server: ListeningServer;
let projectId: string;
let keys: { publishableClientKey: string; secretServerKey: string; superSecretAdminKey: string };

beforeAll(async () => {
  server = await startListeningServer();
  const project = await server.createProject("SDK compat");
  projectId = project.id;
  keys = project.keys;
});
afterAll(() => server.close());
afterEach(useRealClock);

describe.each([
  ["@stackframe/js 2.8.102", sdk102 as Sdk, "v102"],
  ["@stackframe/js latest 2.8.x", sdkLatest as unknown as Sdk, "latest"],
])("%s", (_name, sdk, sdkTag) => {
  const clientApp = () =>
    new sdk.StackClientApp({
      projectId,
      baseUrl: server.baseUrl,
      publishableClientKey: keys.publishableClientKey,
      tokenStore: "memory",
      redirectMethod: "none",
    });
  const serverApp = () =>
    new sdk.StackServerApp({
      projectId,
      baseUrl: server.baseUrl,
      publishableClientKey: keys.publishableClientKey,
      secretServerKey: keys.secretServerKey,
      tokenStore: "memory",
      redirectMethod: "none",
    });
  const adminApp = () =>
    new sdk.StackAdminApp({
      projectId,
      baseUrl: server.baseUrl,
      publishableClientKey: keys.publishableClientKey,
      secretServerKey: keys.secretServerKey,
      superSecretAdminKey: keys.superSecretAdminKey,
      tokenStore: "memory",
      redirectMethod: "none",
    });
  const callbackUrl = (path: string) => `http://localhost:3000/handler/${path}`;
  const codeSentTo = async (email: string) =>
    codeFromEmail((await latestEmailTo(server.gatehouse, projectId, email)).text);
  const signedUpClient = async (email = uniqueEmail("sdk")) => {
    const app = clientApp();
    const result = await app.signUpWithCredential({
      email,
      password: "correct horse battery",
      noVerificationCallback: true,
    });
    expect(result.status).toBe("ok");
    return { app, email, user: await app.getUser({ or: "throw" }) };
  };

  beforeAll(async () => {
    const project = await adminApp().getProject();
    await project.updateConfig({
      "teams.allowClientTeamCreation": true,
      "apiKeys.enabled.user": true,
      "apiKeys.enabled.team": true,
      "auth.otp.allowSignIn": true,
    });
  });

  it("signs up, reads and updates the current user, signs out and in again", async () => {
    const app = clientApp();
    const email = uniqueEmail("sdk");
    const signUp = await app.signUpWithCredential({
      email,
      password: "correct horse battery",
      noVerificationCallback: true,
    });
    expect(signUp.status).toBe("ok");

    const user = await app.getUser({ or: "throw" });
    expect(user.primaryEmail).toBe(email);
    expect(user.hasPassword).toBe(true);

    await user.update({ displayName: "Ada Lovelace" });
    const updated = await app.getUser({ or: "throw" });
    expect(updated.displayName).toBe("Ada Lovelace");

    await updated.signOut();
    expect(await app.getUser()).toBeNull();

    const wrong = await app.signInWithCredential({ email, password: "wrong password!" });
    expect(wrong.status).toBe("error");
    const right = await app.signInWithCredential({ email, password: "correct horse battery" });
    expect(right.status).toBe("ok");
    expect((await app.getUser({ or: "throw" })).displayName).toBe("Ada Lovelace");
  });

  it("refreshes an expired access token", async () => {
    const app = clientApp();
    await app.signUpWithCredential({
      email: uniqueEmail("sdk"),
      password: "correct horse battery",
      noVerificationCallback: true,
    });
    const before = await app.getUser({ or: "throw" });
    // Jump past the access token's lifetime; server and SDK share this process's clock.
    setClock(Date.now() + 15 * 60 * 1000);
    const after = await app.getUser({ or: "throw" });
    expect(after.id).toBe(before.id);
  });

  it("lists and creates users from a server app", async () => {
    const app = serverApp();
    const email = uniqueEmail("sdk");
    const created = await app.createUser({
      primaryEmail: email,
      password: "server made this",
      primaryEmailAuthEnabled: true,
    });
    expect(created.primaryEmail).toBe(email);
    const listed = await app.listUsers({ limit: 200 });
    expect(listed.map((u) => u.id)).toContain(created.id);
    const fetched = await app.getUser(created.id);
    expect(fetched?.primaryEmail).toBe(email);

    const client = clientApp();
    const signIn = await client.signInWithCredential({ email, password: "server made this" });
    expect(signIn.status).toBe("ok");
  });
  it("reads the config the admin app changed", async () => {
    const config = await (await adminApp().getProject()).getConfig();
    expect(config.teams.allowClientTeamCreation).toBe(true);
    expect(config.apiKeys.enabled.user).toBe(true);
    const client = await clientApp().getProject();
    expect(client.config.clientTeamCreationEnabled).toBe(true);
    expect(client.config.allowUserApiKeys).toBe(true);
    expect(client.config.magicLinkEnabled).toBe(true);
  });

  it("creates and lists teams, invites by email, and lets the invitee accept", async () => {
    const owner = await signedUpClient();
    const team = await owner.user.createTeam({ displayName: "Compat Team" });
    expect(team.displayName).toBe("Compat Team");
    expect((await owner.user.listTeams()).map((t) => t.id)).toContain(team.id);

    const invitee = await signedUpClient();
    await team.inviteUser({ email: invitee.email, callbackUrl: callbackUrl("team-invitation") });
    expect((await team.listInvitations()).map((i) => i.recipientEmail)).toContain(invitee.email);
    const code = await codeSentTo(invitee.email);

    expect(await invitee.app.getTeamInvitationDetails(code)).toEqual({
      status: "ok",
      data: { teamDisplayName: "Compat Team" },
    });
    const accepted = await invitee.app.acceptTeamInvitation(code);
    expect(accepted.status).toBe("ok");
    const joined = await invitee.app.getUser({ or: "throw" });
    expect((await joined.listTeams()).map((t) => t.id)).toContain(team.id);
    expect((await team.listUsers()).map((u) => u.id).sort()).toEqual([owner.user.id, joined.id].sort());

    const again = await invitee.app.acceptTeamInvitation(code);
    expect(again.status).toBe("error");
  });

  it("shows invitations to a verified address, selects, updates, leaves and deletes teams", async () => {
    const owner = await signedUpClient();
    const team = await owner.user.createTeam({ displayName: "Before" });

    // An email code proves the address, so the invitee's primary email is verified.
    const inviteeEmail = uniqueEmail("sdk");
    const invitee = clientApp();
    await invitee.sendMagicLinkEmail(inviteeEmail, { callbackUrl: callbackUrl("magic-link-callback") });
    expect((await invitee.signInWithMagicLink(await codeSentTo(inviteeEmail))).status).toBe("ok");
    await team.inviteUser({ email: inviteeEmail, callbackUrl: callbackUrl("team-invitation") });
    expect((await invitee.verifyTeamInvitationCode(await codeSentTo(inviteeEmail))).status).toBe("ok");

    const inviteeUser = await invitee.getUser({ or: "throw" });
    const [received] = await inviteeUser.listTeamInvitations();
    expect(received).toMatchObject({
      teamId: team.id,
      teamDisplayName: "Before",
      recipientEmail: inviteeEmail,
    });
    await received!.accept();
    expect((await inviteeUser.listTeams()).map((t) => t.id)).toEqual([team.id]);

    await inviteeUser.setSelectedTeam(team);
    expect((await invitee.getUser({ or: "throw" })).selectedTeam?.id).toBe(team.id);
    await inviteeUser.leaveTeam(team);
    expect(await inviteeUser.listTeams()).toEqual([]);

    await team.update({ displayName: "After" });
    expect((await owner.user.getTeam(team.id))?.displayName).toBe("After");
    await team.delete();
    expect(await owner.user.listTeams()).toEqual([]);
  });

  it("grants, checks, lists and revokes team permissions from a server app", async () => {
    await adminApp().createTeamPermissionDefinition({
      id: `reports_${sdkTag}`,
      description: "Read reports",
      containedPermissionIds: [],
    });
    const app = serverApp();
    const user = await app.createUser({ primaryEmail: uniqueEmail("sdk") });
    const team = await app.createTeam({ displayName: "Permissions" });
    await team.addUser(user.id);

    const permission = `reports_${sdkTag}`;
    expect(await user.hasPermission(team, permission)).toBe(false);
    await user.grantPermission(team, permission);
    expect(await user.hasPermission(team, permission)).toBe(true);
    expect((await user.getPermission(team, permission))?.id).toBe(permission);
    expect((await user.listPermissions(team, { recursive: false })).map((p) => p.id).sort()).toEqual(
      [permission, "team_member"].sort(),
    );
    // Team members get team_member by default, which contains $read_members.
    expect((await user.listPermissions(team)).map((p) => p.id)).toContain("$read_members");
    await user.revokePermission(team, permission);
    expect(await user.hasPermission(team, permission)).toBe(false);

    await user.grantPermission(team, permission);
    expect(
      (await app.listTeamMemberPermissions(team.id)).some(
        (p) => p.userId === user.id && p.permissionId === permission,
      ),
    ).toBe(true);

    // The same answers on the client side, for a session the server made for the user.
    const session = await user.createSession({ expiresInMillis: 60 * 60 * 1000 });
    const tokens = await session.getTokens();
    const client = new sdk.StackClientApp({
      projectId,
      baseUrl: server.baseUrl,
      publishableClientKey: keys.publishableClientKey,
      tokenStore: { accessToken: tokens.accessToken ?? "", refreshToken: tokens.refreshToken ?? "" },
      redirectMethod: "none",
    });
    const me = await client.getUser({ or: "throw" });
    const clientTeam = await me.getTeam(team.id);
    expect(clientTeam).not.toBeNull();
    expect(await me.hasPermission(clientTeam!, permission)).toBe(true);
    // The SDK lists recursively unless told otherwise.
    expect((await me.listPermissions(clientTeam!, { recursive: false })).map((p) => p.id).sort()).toEqual(
      [permission, "team_member"].sort(),
    );
  });

  it("creates, checks and revokes a user API key", async () => {
    const { user } = await signedUpClient();
    const created = await user.createApiKey({ description: "CI key", expiresAt: null });
    expect(created.value).toMatch(/\S{20,}/);
    expect(created.userId).toBe(user.id);
    expect((await user.listApiKeys()).map((k) => k.id)).toContain(created.id);

    const app = serverApp();
    const owner = await app.getUser({ apiKey: created.value });
    expect(owner?.id).toBe(user.id);

    await created.revoke();
    expect(await app.getUser({ apiKey: created.value })).toBeNull();
    const [listed] = await user.listApiKeys();
    expect(listed?.isValid()).toBe(false);
    expect(listed?.whyInvalid()).toBe("manually-revoked");
  });

  it("creates a team API key and finds its team from a server app", async () => {
    const { user } = await signedUpClient();
    const team = await user.createTeam({ displayName: "Keyed" });
    const key = await team.createApiKey({ description: "deploy", expiresAt: null });
    expect(key.teamId).toBe(team.id);
    expect((await team.listApiKeys()).map((k) => k.id)).toEqual([key.id]);
    const app = serverApp();
    expect((await app.getTeam({ apiKey: key.value }))?.id).toBe(team.id);
    // A team key is not a user key, and the reverse.
    expect(await app.getUser({ apiKey: key.value })).toBeNull();
    await key.revoke();
    expect(await app.getTeam({ apiKey: key.value })).toBeNull();
  });

  it("turns an anonymous user into a full account in place", async () => {
    const app = clientApp();
    const anonymous = await app.getUser({ or: "anonymous" });
    expect(anonymous.isAnonymous).toBe(true);
    const email = uniqueEmail("sdk");
    const signUp = await app.signUpWithCredential({
      email,
      password: "correct horse battery",
      noVerificationCallback: true,
    });
    expect(signUp.status).toBe("ok");
    const user = await app.getUser({ or: "throw" });
    expect(user.id).toBe(anonymous.id);
    expect(user.isAnonymous).toBe(false);
    expect(user.primaryEmail).toBe(email);
  });

  it("signs in with a magic link", async () => {
    const app = clientApp();
    const email = uniqueEmail("sdk");
    const sent = await app.sendMagicLinkEmail(email, { callbackUrl: callbackUrl("magic-link-callback") });
    expect(sent.status).toBe("ok");
    const signedIn = await app.signInWithMagicLink(await codeSentTo(email), { noRedirect: true });
    expect(signedIn.status).toBe("ok");
    const user = await app.getUser({ or: "throw" });
    expect(user.primaryEmail).toBe(email);
    expect(user.primaryEmailVerified).toBe(true);
  });

  it("resets a forgotten password", async () => {
    const { email } = await signedUpClient();
    const app = clientApp();
    const sent = await app.sendForgotPasswordEmail(email, { callbackUrl: callbackUrl("password-reset") });
    expect(sent.status).toBe("ok");
    const code = await codeSentTo(email);
    expect((await app.verifyPasswordResetCode(code)).status).toBe("ok");
    expect((await app.resetPassword({ code, password: "a brand new password" })).status).toBe("ok");
    expect((await app.signInWithCredential({ email, password: "correct horse battery" })).status).toBe(
      "error",
    );
    expect((await app.signInWithCredential({ email, password: "a brand new password" })).status).toBe("ok");
  });

  it("lists contact channels and sessions", async () => {
    const { app, email, user } = await signedUpClient();
    const channels = await user.listContactChannels();
    expect(channels.map((c) => [c.value, c.isPrimary, c.usedForAuth])).toEqual([[email, true, true]]);

    const workEmail = uniqueEmail("sdk");
    const work = await user.createContactChannel({ type: "email", value: workEmail, usedForAuth: false });
    expect(work).toMatchObject({ value: workEmail, isPrimary: false, isVerified: false, usedForAuth: false });
    await work.sendVerificationEmail({ callbackUrl: callbackUrl("email-verification") });
    expect((await app.verifyEmail(await codeSentTo(workEmail))).status).toBe("ok");
    const verified = (await user.listContactChannels()).find((c) => c.id === work.id);
    expect(verified?.isVerified).toBe(true);
    await work.update({ isPrimary: true });
    expect((await app.getUser({ or: "throw" })).primaryEmail).toBe(workEmail);

    const second = clientApp();
    expect((await second.signInWithCredential({ email, password: "correct horse battery" })).status).toBe(
      "ok",
    );
    const sessions = await (await app.getUser({ or: "throw" })).getActiveSessions();
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s) => s.isCurrentSession)).toHaveLength(1);
    expect(sessions.every((s) => s.userId === user.id)).toBe(true);

    const other = sessions.find((s) => !s.isCurrentSession)!;
    await user.revokeSession(other.id);
    expect((await user.getActiveSessions()).map((s) => s.isCurrentSession)).toEqual([true]);
    // Access tokens stay valid until they expire; after that the revoked session cannot refresh.
    setClock(Date.now() + 15 * 60 * 1000);
    expect(await second.getUser()).toBeNull();
    expect((await app.getUser({ or: "throw" })).id).toBe(user.id);
  });

  // The cross-domain hand-off (POST /auth/oauth/cross-domain/authorize) has no case here: the SDK reaches it only
  // from private, browser-only code (it reads window.location and keeps the verifier in a cookie).
  it("gets a connected account's provider access token after an OAuth sign-in", async () => {
    await (await adminApp().getProject()).updateConfig({
      "auth.oauth.providers.github": { isShared: false, clientId: "MOCK", clientSecret: "MOCK" },
    });
    const email = uniqueEmail("sdk");
    const session = await signInOverHttp(server.baseUrl, { id: projectId, keys }, email);
    const app = new sdk.StackClientApp({
      projectId,
      baseUrl: server.baseUrl,
      publishableClientKey: keys.publishableClientKey,
      tokenStore: { accessToken: session.accessToken, refreshToken: session.refreshToken },
      redirectMethod: "none",
    });
    const user = await app.getUser({ or: "throw" });
    // The development provider's users carry a marked address, never one an existing user may hold.
    expect(user.primaryEmail).toBe(devProviderEmail(email));
    const providerSubject = async (accessToken: string) => {
      const response = await fetch(`${session.providerIssuer}/me`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      return response.ok ? ((await response.json()) as { sub: string }).sub : response.status;
    };

    const connection = await user.getConnectedAccount("github");
    expect(connection).not.toBeNull();
    expect(await providerSubject((await connection!.getAccessToken()).accessToken)).toBe(email);
    expect(await user.getConnectedAccount("github", { scopes: ["dev:write"] })).toBeNull();
  });
});
