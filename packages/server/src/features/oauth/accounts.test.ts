/**
 * Who an OAuth sign-in lands on: account merge strategies, the development provider that never merges, linking to
 * the signed-in user, anonymous upgrades, and MFA after OAuth. Through the full flow against the development
 * provider, except where a provider that vouches for its addresses is needed (`signInWithTrustedProvider`).
 */
import { createHmac, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { devProviderEmail } from "./dev-provider.ts";
import {
  exchangeCode,
  redirectError,
  runFlow,
  signInWithDevProvider,
  signInWithTrustedProvider,
} from "./test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("OAuth accounts");
  await project.configure({ "auth.oauth.providers.github": { isShared: true } });
});
afterAll(() => server.close());

async function userOf(accessToken: string, target: TestProject = project) {
  const response = await server.request("/api/v1/users/me", {
    headers: target.headers("server", { "x-stack-access-token": accessToken }),
  });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

async function serverView(userId: string, target: TestProject = project) {
  const response = await server.request(`/api/v1/users/${userId}`, { headers: target.headers("server") });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

async function projectWithStrategy(strategy: string) {
  const target = await server.createProject(`Merge ${strategy}`);
  await target.configure({
    "auth.oauth.providers.github": { isShared: true },
    "auth.oauth.accountMergeStrategy": strategy,
  });
  return target;
}

describe("account merge strategies, when the provider's email already signs someone in", () => {
  it("link_method links the provider to the user when both sides verified the address", async () => {
    const email = uniqueEmail("merge");
    const existing = await createSignedInUser(server, project.id, {
      primaryEmail: email,
      primaryEmailVerified: true,
    });
    const { user, isNewUser, accountId } = await signInWithTrustedProvider(server, project, { email });
    expect(isNewUser).toBe(false);
    expect(user.id).toBe(existing.user.id);
    expect((await serverView(user.id)).oauth_providers).toEqual([
      { id: "github", account_id: accountId, email },
    ]);
  });

  it("link_method refuses when the existing address was never verified", async () => {
    const email = uniqueEmail("unverified");
    await createSignedInUser(server, project.id, { primaryEmail: email, primaryEmailVerified: false });
    await expect(signInWithTrustedProvider(server, project, { email })).rejects.toMatchObject({
      code: "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
      details: { type: "email", contact_channel_value: email, would_work_if_email_was_verified: true },
    });
  });

  it("link_method refuses when the provider did not verify the address", async () => {
    const email = uniqueEmail("unproven");
    await createSignedInUser(server, project.id, { primaryEmail: email, primaryEmailVerified: true });
    await expect(
      signInWithTrustedProvider(server, project, { email, emailVerified: false }),
    ).rejects.toMatchObject({
      code: "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
      details: { type: "email", contact_channel_value: email, would_work_if_email_was_verified: false },
    });
  });

  it("raise_error refuses", async () => {
    const target = await projectWithStrategy("raise_error");
    const email = uniqueEmail("raise");
    await createSignedInUser(server, target.id, { primaryEmail: email, primaryEmailVerified: true });
    await expect(signInWithTrustedProvider(server, target, { email })).rejects.toMatchObject({
      code: "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
      details: { type: "email", contact_channel_value: email, would_work_if_email_was_verified: false },
    });
  });

  it("allow_duplicates creates a second user whose address does not sign in", async () => {
    const target = await projectWithStrategy("allow_duplicates");
    const email = uniqueEmail("dup");
    const existing = await createSignedInUser(server, target.id, {
      primaryEmail: email,
      primaryEmailVerified: true,
    });
    const first = await signInWithTrustedProvider(server, target, { email });
    expect(first.isNewUser).toBe(true);
    expect(first.user.id).not.toBe(existing.user.id);
    expect(await serverView(first.user.id, target)).toMatchObject({
      primary_email: email,
      primary_email_auth_enabled: false,
    });
    // The provider account now signs in the duplicate, not the original.
    const again = await signInWithTrustedProvider(server, target, { email, accountId: first.accountId });
    expect(again).toMatchObject({ isNewUser: false, user: { id: first.user.id } });
  });

  it("do not apply to an address that signs no one in: a new user with the provider's verified address", async () => {
    const email = uniqueEmail("fresh");
    const { user, isNewUser } = await signInWithTrustedProvider(server, project, { email });
    expect(isNewUser).toBe(true);
    expect(await serverView(user.id)).toMatchObject({
      primary_email: email,
      primary_email_verified: true,
      primary_email_auth_enabled: true,
    });
  });
});

describe("the development provider, where anyone can type any address", () => {
  /** A password user whose verified address is what an attacker types at the development provider. */
  async function victim(target: TestProject) {
    const email = uniqueEmail("victim");
    const password = "victim's long password";
    const signUp = await server.request("/api/v1/auth/password/sign-up", {
      method: "POST",
      headers: target.headers("client"),
      body: { email, password },
    });
    expect(signUp.status, signUp.text).toBe(200);
    const id = signUp.body.user_id as string;
    const verify = await server.request(`/api/v1/users/${id}`, {
      method: "PATCH",
      headers: target.headers("server"),
      body: { primary_email_verified: true },
    });
    expect(verify.status, verify.text).toBe(200);
    return { id, email, password, before: await serverView(id, target) };
  }

  async function expectUntouched(target: TestProject, account: Awaited<ReturnType<typeof victim>>) {
    const after = await serverView(account.id, target);
    expect(after).toEqual({ ...account.before, last_active_at_millis: after.last_active_at_millis });
    expect(after).toMatchObject({
      primary_email_verified: true,
      primary_email_auth_enabled: true,
      oauth_providers: [],
    });
    const signIn = await server.request("/api/v1/auth/password/sign-in", {
      method: "POST",
      headers: target.headers("client"),
      body: { email: account.email, password: account.password },
    });
    expect(signIn.status, signIn.text).toBe(200);
    expect(signIn.body.user_id).toBe(account.id);
  }

  it("never signs in to an existing account by its address: a separate user, and the victim untouched", async () => {
    const existing = await victim(project);
    const { tokens } = await signInWithDevProvider(server, project, existing.email);
    expect(tokens.is_new_user).toBe(true);
    const user = await userOf(tokens.access_token);
    expect(user.id).not.toBe(existing.id);
    // It gets the address marked, so it shares no address with the victim either.
    const marked = devProviderEmail(existing.email);
    expect(user).toMatchObject({
      primary_email: marked,
      primary_email_verified: false,
      primary_email_auth_enabled: false,
      oauth_providers: [{ id: "github", account_id: existing.email, email: marked }],
    });
    await expectUntouched(project, existing);

    // The same development identity finds the user it made, never the victim.
    const again = await signInWithDevProvider(server, project, existing.email);
    expect(again.tokens.is_new_user).toBe(false);
    expect((await userOf(again.tokens.access_token)).id).toBe(user.id);
    await expectUntouched(project, existing);
  });

  it("does not merge under any strategy", async () => {
    for (const strategy of ["raise_error", "allow_duplicates"]) {
      const target = await projectWithStrategy(strategy);
      const existing = await victim(target);
      const { tokens } = await signInWithDevProvider(server, target, existing.email);
      const user = await userOf(tokens.access_token, target);
      expect(user.id, strategy).not.toBe(existing.id);
      expect(user.primary_email_auth_enabled, strategy).toBe(false);
      await expectUntouched(target, existing);
    }
  });

  it("leaves its address free for the person who owns it", async () => {
    const email = uniqueEmail("squat");
    const { tokens } = await signInWithDevProvider(server, project, email);
    const signUp = await server.request("/api/v1/auth/password/sign-up", {
      method: "POST",
      headers: project.headers("client"),
      body: { email, password: "the owner's long password" },
    });
    expect(signUp.status, signUp.text).toBe(200);
    expect(signUp.body.user_id).not.toBe((await userOf(tokens.access_token)).id);
  });
});

describe("linking (type=link)", () => {
  it("connects the provider account to the signed-in user, who can then sign in with it", async () => {
    const owner = await createSignedInUser(server, project.id, { primaryEmail: uniqueEmail("owner") });
    const providerEmail = uniqueEmail("linked");
    const { tokens } = await signInWithDevProvider(server, project, providerEmail, {
      type: "link",
      token: owner.accessToken,
    });
    expect(tokens.is_new_user).toBe(false);
    const user = await userOf(tokens.access_token);
    expect(user.id).toBe(owner.user.id);
    expect(user.oauth_providers).toEqual([
      { id: "github", account_id: providerEmail, email: devProviderEmail(providerEmail) },
    ]);
    const later = await signInWithDevProvider(server, project, providerEmail);
    expect((await userOf(later.tokens.access_token)).id).toBe(owner.user.id);
  });

  it("refuses a provider account that another user already has", async () => {
    const taken = uniqueEmail("taken");
    await signInWithDevProvider(server, project, taken);
    const someoneElse = await createSignedInUser(server, project.id);
    const { location } = await runFlow(server, project, taken, {
      type: "link",
      token: someoneElse.accessToken,
    });
    expect(redirectError(location).code).toBe("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER");
  });
});

describe("anonymous users", () => {
  async function anonymousUser() {
    const response = await server.request("/api/v1/auth/anonymous/sign-up", {
      method: "POST",
      headers: project.headers("client"),
    });
    expect(response.status, response.text).toBe(200);
    return response.body as { access_token: string; user_id: string };
  }

  it("are upgraded in place by an OAuth sign-in", async () => {
    const anonymous = await anonymousUser();
    const email = uniqueEmail("upgrade");
    const { tokens } = await signInWithDevProvider(server, project, email, { token: anonymous.access_token });
    expect(tokens.is_new_user).toBe(true);
    const user = await userOf(tokens.access_token);
    expect(user).toMatchObject({
      id: anonymous.user_id,
      is_anonymous: false,
      // The development provider's address proves nothing, and comes marked.
      primary_email: devProviderEmail(email),
      primary_email_verified: false,
      primary_email_auth_enabled: false,
      oauth_providers: [{ id: "github", account_id: email, email: devProviderEmail(email) }],
    });
  });

  it("sign in with the address from then on when the provider verified it", async () => {
    const anonymous = await anonymousUser();
    const email = uniqueEmail("upgrade-verified");
    const { user, isNewUser } = await signInWithTrustedProvider(server, project, {
      email,
      userId: anonymous.user_id,
    });
    expect({ id: user.id, isNewUser }).toEqual({ id: anonymous.user_id, isNewUser: true });
    expect(await serverView(user.id)).toMatchObject({
      is_anonymous: false,
      primary_email: email,
      primary_email_verified: true,
      primary_email_auth_enabled: true,
    });
  });

  it("get what a sign-up gives, such as the personal team", async () => {
    const teams = await server.createProject("Personal teams");
    await teams.configure({
      "auth.oauth.providers.github": { isShared: true },
      "teams.createPersonalTeamOnSignUp": true,
    });
    const anonymous = await server.request("/api/v1/auth/anonymous/sign-up", {
      method: "POST",
      headers: teams.headers("client"),
    });
    const email = uniqueEmail("team");
    const { tokens } = await signInWithDevProvider(server, teams, email, {
      token: anonymous.body.access_token,
    });
    const user = await userOf(tokens.access_token, teams);
    expect(user).toMatchObject({ id: anonymous.body.user_id, is_anonymous: false });
    expect(user.selected_team?.display_name).toBe(`${devProviderEmail(email)}'s Team`);
    const fresh = await signInWithDevProvider(server, teams, uniqueEmail("fresh"));
    expect((await userOf(fresh.tokens.access_token, teams)).selected_team).not.toBeNull();
  });

  it("sign in to the provider account's user when that account already exists", async () => {
    const email = uniqueEmail("known");
    const first = await signInWithDevProvider(server, project, email);
    const known = await userOf(first.tokens.access_token);
    const anonymous = await anonymousUser();
    const { tokens } = await signInWithDevProvider(server, project, email, { token: anonymous.access_token });
    expect(tokens.is_new_user).toBe(false);
    expect((await userOf(tokens.access_token)).id).toBe(known.id);
  });
});

describe("MFA after OAuth", () => {
  /** RFC 6238: SHA-1, 30 s, 6 digits. */
  function totp(secret: Buffer): string {
    const counter = Buffer.alloc(8);
    counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000)));
    const hmac = createHmac("sha1", secret).update(counter).digest();
    const offset = hmac[hmac.length - 1]! & 0xf;
    return ((hmac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).toString().padStart(6, "0");
  }

  it("stops the code exchange with MULTI_FACTOR_AUTHENTICATION_REQUIRED, and the MFA step finishes it", async () => {
    const email = uniqueEmail("mfa");
    const first = await signInWithDevProvider(server, project, email);
    const secret = randomBytes(20);
    const enable = await server.request("/api/v1/users/me", {
      method: "PATCH",
      headers: project.headers("client", { "x-stack-access-token": first.tokens.access_token }),
      body: { totp_secret_base64: secret.toString("base64") },
    });
    expect(enable.status, enable.text).toBe(200);

    const { flow, location } = await runFlow(server, project, email);
    const exchanged = await exchangeCode(server, project, {
      code: location.searchParams.get("code")!,
      verifier: flow.verifier,
      redirectUri: flow.redirectUri,
    });
    expectKnownError(exchanged, 400, "MULTI_FACTOR_AUTHENTICATION_REQUIRED");
    const attemptCode = exchanged.body.details.attempt_code as string;
    const mfa = await server.request("/api/v1/auth/mfa/sign-in", {
      method: "POST",
      headers: project.headers("client"),
      body: { type: "totp", totp: totp(secret), code: attemptCode },
    });
    expect(mfa.status, mfa.text).toBe(200);
    expect(mfa.body.user_id).toBe((await userOf(first.tokens.access_token)).id);
  });
});
