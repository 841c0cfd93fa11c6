/**
 * `POST /auth/oauth/cross-domain/authorize` and the exchange of its code at `POST /auth/oauth/token`: a signed-in
 * user's session handed to another trusted domain of the project, through HTTP on the real app.
 */
import { createHash, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { expireRows } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { AUTHORIZATION_CODE_LIFETIME_MS } from "./code-grant.ts";
import { oauthAuthorizationCodes } from "./schema.ts";
import { exchangeCode } from "./test-support.ts";

const TARGET = "https://docs.example.com/handler/oauth-callback?stack_cross_domain_auth=1";
const AFTER = "https://docs.example.com/dashboard";

let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Cross-domain");
  other = await server.createProject("Another project");
  await project.configure({
    "domains.allowLocalhost": false,
    "domains.trustedDomains.app": { baseUrl: "https://app.example.com" },
    "domains.trustedDomains.docs": { baseUrl: "https://docs.example.com" },
  });
});
afterAll(() => server.close());

/** What the receiving page keeps: its PKCE verifier and state, and the challenge it sends. */
function handoffParams() {
  const verifier = randomBytes(32).toString("base64url");
  return {
    verifier,
    state: randomBytes(16).toString("hex"),
    challenge: createHash("sha256").update(verifier).digest("base64url"),
  };
}

async function signedInUser(input: Parameters<typeof createSignedInUser>[2] = {}) {
  return createSignedInUser(server, project.id, { primaryEmail: uniqueEmail("xdomain"), ...input });
}

function authorize(headers: Record<string, string>, body: Record<string, unknown>) {
  return server.request("/api/v1/auth/oauth/cross-domain/authorize", { method: "POST", headers, body });
}

/** A full, valid request body for `params`, with `overrides` on top. */
function requestBody(params: ReturnType<typeof handoffParams>, overrides: Record<string, unknown> = {}) {
  return {
    redirect_uri: TARGET,
    state: params.state,
    code_challenge: params.challenge,
    code_challenge_method: "S256",
    after_callback_redirect_url: AFTER,
    ...overrides,
  };
}

type Session = { accessToken: string; refreshToken: string };

/** The headers the SDK sends for a session: its access token and its refresh token. */
const sessionHeaders = (session: Session, extra: Record<string, string> = {}) =>
  project.headers("client", {
    "x-stack-access-token": session.accessToken,
    "x-stack-refresh-token": session.refreshToken,
    ...extra,
  });

/** Authorizes for `session` and returns the code from the redirect URL, checking its shape. */
async function handOff(session: Session, params = handoffParams(), extra: Record<string, string> = {}) {
  const response = await authorize(sessionHeaders(session, extra), requestBody(params));
  expect(response.status, response.text).toBe(200);
  const redirect = new URL(response.body.redirect_url);
  expect(`${redirect.origin}${redirect.pathname}`).toBe("https://docs.example.com/handler/oauth-callback");
  expect(redirect.searchParams.get("stack_cross_domain_auth")).toBe("1");
  expect(redirect.searchParams.get("state")).toBe(params.state);
  const code = redirect.searchParams.get("code")!;
  expect(code).toMatch(/^[0-9a-f]{64}$/);
  return { code, params };
}

function exchange(code: string, params: { verifier: string }, redirectUri = TARGET) {
  return exchangeCode(server, project, { code, verifier: params.verifier, redirectUri });
}

function me(target: TestProject, accessToken: string, extra: Record<string, string> = {}) {
  return server.request("/api/v1/users/me", {
    headers: target.headers("client", { "x-stack-access-token": accessToken, ...extra }),
  });
}

describe("the hand-off", () => {
  it("gives the receiving domain the same session of the same user", async () => {
    const source = await signedInUser();
    const { code, params } = await handOff(source);

    const tokens = await exchange(code, params);
    expect(tokens.status, tokens.text).toBe(200);
    expect(tokens.body).toMatchObject({
      token_type: "Bearer",
      is_new_user: false,
      newUser: false,
      after_callback_redirect_url: AFTER,
      afterCallbackRedirectUrl: AFTER,
    });
    expect(tokens.body.refresh_token).toBe(source.refreshToken);
    const user = await me(project, tokens.body.access_token);
    expect(user.status, user.text).toBe(200);
    expect(user.body.id).toBe(source.user.id);

    // The one session: it refreshes, and the source's access token goes on working.
    const refreshed = await server.request("/api/v1/auth/oauth/token", {
      method: "POST",
      body: {
        grant_type: "refresh_token",
        refresh_token: tokens.body.refresh_token,
        client_id: project.id,
        client_secret: project.keys.publishableClientKey,
      },
    });
    expect(refreshed.status, refreshed.text).toBe(200);
    expect((await me(project, source.accessToken)).body.id).toBe(source.user.id);
  });

  it("keeps only a hash of the code, which lives as long as the callback's codes", async () => {
    const { code } = await handOff(await signedInUser());
    const rows = await server.deps.db
      .select()
      .from(oauthAuthorizationCodes)
      .where(eq(oauthAuthorizationCodes.codeHash, sha256Hex(code)));
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row!.projectId).toBe(project.id);
    expect(row!.redirectUri).toBe(TARGET);
    expect(row!.codeChallengeMethod).toBe("S256");
    const lifetime = row!.expiresAt.getTime() - row!.createdAt.getTime();
    expect(Math.abs(lifetime - AUTHORIZATION_CODE_LIFETIME_MS)).toBeLessThan(5000);
    expect(
      await server.deps.db
        .select()
        .from(oauthAuthorizationCodes)
        .where(eq(oauthAuthorizationCodes.codeHash, code)),
    ).toEqual([]);
  });

  it("works for an anonymous user who says so, and the new session is anonymous too", async () => {
    const anonymous = await createSignedInUser(server, project.id, { isAnonymous: true });
    const allow = { "x-stack-allow-anonymous-user": "true" };
    expectKnownError(
      await authorize(sessionHeaders(anonymous), requestBody(handoffParams())),
      401,
      "ANONYMOUS_AUTHENTICATION_NOT_ALLOWED",
    );
    const { code, params } = await handOff(anonymous, handoffParams(), allow);
    const tokens = await exchange(code, params);
    expect(tokens.status, tokens.text).toBe(200);
    const user = await me(project, tokens.body.access_token, allow);
    expect(user.body).toMatchObject({ id: anonymous.user.id, is_anonymous: true });
  });

  it("hands over a TOTP user's session without a second factor: the session passed it already", async () => {
    const source = await signedInUser();
    const enabled = await server.request("/api/v1/users/me", {
      method: "PATCH",
      headers: project.headers("client", { "x-stack-access-token": source.accessToken }),
      body: { totp_secret_base64: randomBytes(20).toString("base64") },
    });
    expect(enabled.status, enabled.text).toBe(200);
    const { code, params } = await handOff(source);
    const response = await exchange(code, params);
    expect(response.status, response.text).toBe(200);
    expect(response.body.refresh_token).toBe(source.refreshToken);
  });
});

describe("what the authorize request must carry", () => {
  it("refuses a redirect_uri or after-callback URL off the trusted domains, and relative ones", async () => {
    const headers = sessionHeaders(await signedInUser());
    for (const overrides of [
      { redirect_uri: "https://evil.example.org/handler/oauth-callback" },
      { redirect_uri: "http://localhost:3000/handler/oauth-callback" },
      { redirect_uri: "/handler/oauth-callback" },
      { redirect_uri: "not a url" },
      { after_callback_redirect_url: "https://evil.example.org/" },
      { after_callback_redirect_url: "/dashboard" },
    ]) {
      const response = await authorize(headers, requestBody(handoffParams(), overrides));
      expectKnownError(response, 400, "REDIRECT_URL_NOT_WHITELISTED");
    }
    const rows = await server.deps.db
      .select()
      .from(oauthAuthorizationCodes)
      .where(eq(oauthAuthorizationCodes.projectId, project.id));
    expect(rows.filter((row) => !row.redirectUri.startsWith("https://docs.example.com/"))).toEqual([]);
  });

  it("takes only an S256 challenge (the method may be left out)", async () => {
    const headers = sessionHeaders(await signedInUser());
    const params = handoffParams();
    for (const overrides of [
      { code_challenge: undefined },
      { code_challenge: "short" },
      { code_challenge_method: "plain", code_challenge: params.verifier },
      { state: undefined },
      { redirect_uri: undefined },
      { extra: "x" },
    ]) {
      expectKnownError(await authorize(headers, requestBody(params, overrides)), 400, "SCHEMA_ERROR");
    }
  });

  it("needs a signed-in user", async () => {
    const body = requestBody(handoffParams());
    expectKnownError(await authorize(project.headers("client"), body), 401, "USER_AUTHENTICATION_REQUIRED");
    expectKnownError(await authorize(project.headers("server"), body), 401, "USER_AUTHENTICATION_REQUIRED");
    expectKnownError(
      await authorize(project.headers("client", { "x-stack-access-token": "not-a-jwt" }), body),
      401,
      "UNPARSABLE_ACCESS_TOKEN",
    );
  });

  it("refuses a user's token under another project's key", async () => {
    const { accessToken, refreshToken } = await signedInUser();
    expectKnownError(
      await authorize(
        other.headers("client", {
          "x-stack-access-token": accessToken,
          "x-stack-refresh-token": refreshToken,
        }),
        requestBody(handoffParams()),
      ),
      401,
      "INVALID_PROJECT_FOR_ACCESS_TOKEN",
    );
  });
});

describe("the code exchange", () => {
  it("is single-use; a replay, which anyone who saw the URL can send, does not end the session", async () => {
    const { code, params } = await handOff(await signedInUser());
    const first = await exchange(code, params);
    expect(first.status, first.text).toBe(200);
    expectKnownError(await exchange(code, params), 400, "INVALID_AUTHORIZATION_CODE");
    const refresh = await server.request("/api/v1/auth/oauth/token", {
      method: "POST",
      body: {
        grant_type: "refresh_token",
        refresh_token: first.body.refresh_token,
        client_id: project.id,
        client_secret: project.keys.publishableClientKey,
      },
    });
    expect(refresh.status, refresh.text).toBe(200);
  });

  it("refuses a wrong verifier", async () => {
    const { code } = await handOff(await signedInUser());
    expectKnownError(await exchange(code, handoffParams()), 400, "INVALID_AUTHORIZATION_CODE");
  });

  it("refuses another redirect_uri", async () => {
    const { code, params } = await handOff(await signedInUser());
    for (const redirectUri of [
      "https://docs.example.com/handler/oauth-callback",
      "https://app.example.com/",
    ]) {
      const response = await exchange(code, params, redirectUri);
      expect(response.status, response.text).toBe(400);
      expect(response.text).toContain("redirect_uri");
    }
    // Refusals did not use the code up.
    expect((await exchange(code, params)).status).toBe(200);
  });

  it("refuses an expired code", async () => {
    const { code, params } = await handOff(await signedInUser());
    await expireRows(server, oauthAuthorizationCodes, eq(oauthAuthorizationCodes.codeHash, sha256Hex(code)));
    expectKnownError(await exchange(code, params), 400, "INVALID_AUTHORIZATION_CODE");
  });

  it("is bound to the project: another project's client gets nothing", async () => {
    const { code, params } = await handOff(await signedInUser());
    const asClient = (clientId: string, clientSecret: string) =>
      server.request("/api/v1/auth/oauth/token", {
        method: "POST",
        body: {
          grant_type: "authorization_code",
          code,
          redirect_uri: TARGET,
          code_verifier: params.verifier,
          client_id: clientId,
          client_secret: clientSecret,
        },
      });
    expectKnownError(
      await asClient(other.id, other.keys.publishableClientKey),
      400,
      "INVALID_AUTHORIZATION_CODE",
    );
    expectKnownError(
      await asClient(project.id, other.keys.publishableClientKey),
      400,
      "INVALID_OAUTH_CLIENT_ID_OR_SECRET",
    );
    expect((await asClient(project.id, project.keys.publishableClientKey)).status).toBe(200);
  });
});
