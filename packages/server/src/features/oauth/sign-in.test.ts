/**
 * OAuth sign-in end to end against the real development OpenID provider: new and returning users, PKCE S256 and
 * plain, the user's view, and the token exchange.
 */
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { uniqueEmail } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { DEV_PROVIDER_EMAIL_SUFFIX, devProviderEmail } from "./dev-provider.ts";
import {
  APP_REDIRECT_URI,
  devProviderLoginPage,
  exchangeCode,
  postAtDevProvider,
  runFlow,
  signInWithDevProvider,
  startFlow,
} from "./test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("OAuth sign-in");
  await project.configure({ "auth.oauth.providers.github": { isShared: true } });
});
afterAll(() => server.close());

async function me(accessToken: string, target: TestProject = project) {
  const response = await server.request("/api/v1/users/me", {
    headers: target.headers("server", { "x-stack-access-token": accessToken }),
  });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe("sign-in with a new provider account", () => {
  it("creates the user with the provider's marked email, unverified and not for sign-in, and says it is new", async () => {
    const email = uniqueEmail("new");
    const { tokens } = await signInWithDevProvider(server, project, email.toUpperCase());
    expect(tokens).toMatchObject({
      token_type: "Bearer",
      scope: "legacy",
      is_new_user: true,
      newUser: true,
      afterCallbackRedirectUrl: null,
      after_callback_redirect_url: null,
    });
    expect(typeof tokens.expires_in).toBe("number");
    expect(tokens.refresh_token).toMatch(/^[0-9a-z]{45}$/);
    const user = await me(tokens.access_token);
    // Anyone can type any address at the development provider: it claims the address marked, never verified.
    const marked = `${email}${DEV_PROVIDER_EMAIL_SUFFIX}`;
    expect(user).toMatchObject({
      primary_email: marked,
      primary_email_verified: false,
      primary_email_auth_enabled: false,
      is_anonymous: false,
      has_password: false,
      oauth_providers: [{ id: "github", account_id: email, email: marked }],
    });
  });

  it("creates no user that shares an existing user's address", async () => {
    const address = uniqueEmail("taken");
    const { user: existing } = await createSignedInUser(server, project.id, {
      primaryEmail: address,
      primaryEmailVerified: true,
      primaryEmailAuthEnabled: true,
    });
    const { tokens } = await signInWithDevProvider(server, project, address);
    expect(tokens.is_new_user).toBe(true);
    const testAccount = await me(tokens.access_token);
    expect(testAccount.id).not.toBe(existing.id);
    expect(testAccount.primary_email).toBe(devProviderEmail(address));
    // Whatever goes by address (an invitation, a sign-in code) finds the one user who owns it.
    const holders = await server.deps.db
      .select({ userId: contactChannels.userId })
      .from(contactChannels)
      .where(and(eq(contactChannels.projectId, project.id), eq(contactChannels.value, address)));
    expect(holders).toEqual([{ userId: existing.id }]);
    const otp = await server.request("/api/v1/auth/otp/send-sign-in-code", {
      method: "POST",
      headers: project.headers("client"),
      body: { email: devProviderEmail(address), callback_url: APP_REDIRECT_URI },
    });
    // The marked address signs no one in: OTP sign-in is off here, and it would be a new account anyway.
    expect(otp.status).toBeGreaterThanOrEqual(400);
    expect(otp.status).toBeLessThan(500);
  });

  it("refuses a typed address too long to carry the mark", async () => {
    const { providerUrl } = await startFlow(server, project);
    const tooLong = `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(40)}.example`;
    expect(tooLong.length).toBeLessThanOrEqual(254);
    expect(devProviderEmail(tooLong).length).toBeGreaterThan(254);
    const { response } = await postAtDevProvider(
      providerUrl,
      `action=sign-in&email=${encodeURIComponent(tooLong)}`,
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("Please type an email address.");
  });

  it("signs the same user in again the next time", async () => {
    const email = uniqueEmail("again");
    const first = await signInWithDevProvider(server, project, email);
    const second = await signInWithDevProvider(server, project, email);
    expect(second.tokens.is_new_user).toBe(false);
    expect((await me(second.tokens.access_token)).id).toBe((await me(first.tokens.access_token)).id);
  });

  it("accepts plain PKCE as well as S256", async () => {
    const { tokens } = await signInWithDevProvider(server, project, uniqueEmail("plain"), {
      codeChallengeMethod: "plain",
    });
    expect(tokens.is_new_user).toBe(true);
  });

  it("hands back after_callback_redirect_url at the token exchange", async () => {
    const after = "http://localhost:3000/after";
    const { tokens } = await signInWithDevProvider(server, project, uniqueEmail("after"), {
      afterCallbackRedirectUrl: after,
    });
    expect(tokens.afterCallbackRedirectUrl).toBe(after);
    expect(tokens.after_callback_redirect_url).toBe(after);
  });

  it("keeps the app's own query parameters and puts code and state beside them", async () => {
    const redirectUri = `${APP_REDIRECT_URI}?from=test`;
    const { flow, location } = await runFlow(server, project, uniqueEmail("query"), { redirectUri });
    expect(location.searchParams.get("from")).toBe("test");
    expect(location.searchParams.get("state")).toBe(flow.state);
    const exchanged = await exchangeCode(server, project, {
      code: location.searchParams.get("code")!,
      verifier: flow.verifier,
      redirectUri,
    });
    expect(exchanged.status, exchanged.text).toBe(200);
  });

  it("answers with the provider URL and sets no cookie in json mode, and the callback needs no cookie then", async () => {
    const { tokens } = await signInWithDevProvider(server, project, uniqueEmail("json"), { json: true });
    expect(tokens.is_new_user).toBe(true);
    const started = await startFlow(server, project, { json: true });
    expect(started.providerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\?/);
  });

  it("redirects to the provider with our own state, PKCE challenge and callback URL", async () => {
    const flow = await startFlow(server, project);
    const url = new URL(flow.providerUrl);
    expect(url.searchParams.get("client_id")).toBe("github");
    expect(url.searchParams.get("redirect_uri")).toBe(
      "http://localhost:8102/api/v1/auth/oauth/callback/github",
    );
    expect(url.searchParams.get("state")).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get("state")).not.toBe(flow.state);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    const appChallenge = createHash("sha256").update(flow.verifier).digest("base64url");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("code_challenge")).not.toBe(appChallenge);
    expect(flow.innerCookie).toBe(`stack-oauth-inner-${url.searchParams.get("state")}=true`);
  });
});

describe("the development provider's page", () => {
  it("says it is a development stand-in whose addresses are not verified and sign in to no existing account", async () => {
    const { providerUrl } = await startFlow(server, project);
    const page = (await devProviderLoginPage(providerUrl)).replace(/\s+/g, " ");
    expect(page).toContain("<title>Development stand-in for github</title>");
    expect(page).toContain("Development sign-in: not the real github");
    expect(page).toContain(
      "The test account gets the address marked, e.g. <code>ada@example.com.dev-oauth.invalid</code>",
    );
    expect(page).toContain("unverified, never delivered to, and never the address of an existing account");
  });
});
