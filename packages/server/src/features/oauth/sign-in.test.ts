/**
 * OAuth sign-in end to end against the real development OpenID provider: new and returning users, PKCE S256 and
 * plain, the user's view, and the token exchange.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { uniqueEmail } from "../../testing/known-errors.ts";
import {
  APP_REDIRECT_URI,
  devProviderLoginPage,
  exchangeCode,
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
  it("creates the user with the provider's email, unverified and not for sign-in, and says it is new", async () => {
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
    expect(user).toMatchObject({
      primary_email: email,
      // Anyone can type any address at the development provider.
      primary_email_verified: false,
      primary_email_auth_enabled: false,
      is_anonymous: false,
      has_password: false,
      oauth_providers: [{ id: "github", account_id: email, email }],
    });
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
    expect(page).toContain("The address is not verified, and it never signs you in to an existing account");
  });
});
