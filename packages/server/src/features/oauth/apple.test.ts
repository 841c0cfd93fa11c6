/**
 * Sign in with Apple against a local stand-in of Apple (apple-test-support.ts): the browser flow with the client
 * secret minted from the team's key and checked by the stand-in's token endpoint, the ID token verified against
 * the stand-in's keys, and the native iOS flow at `/auth/oauth/callback/apple/native`, over the in-process server
 * and over a real listening one.
 */
import { exportPKCS8, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { type ListeningServer, startListeningServer } from "../../testing/listening-server.ts";
import { appleClientSecret } from "./apple-client-secret.ts";
import { APPLE_KEY_ID, APPLE_TEAM_ID, type AppleStandIn, startAppleStandIn } from "./apple-test-support.ts";
import { appRedirect, exchangeCode, redirectError, startFlow } from "./test-support.ts";

const SERVICES_ID = "com.example.web";
const BUNDLE_ID = "com.example.ios";

let apple: AppleStandIn;
let server: TestServer;
let project: TestProject;

function appleProvider(overrides: Record<string, unknown> = {}) {
  return {
    type: "apple",
    isShared: false,
    clientId: SERVICES_ID,
    appleTeamId: APPLE_TEAM_ID,
    appleKeyId: APPLE_KEY_ID,
    applePrivateKey: apple.teamPrivateKeyPem,
    issuerUrl: apple.issuer,
    appleBundles: { ios: { bundleId: BUNDLE_ID } },
    ...overrides,
  };
}

beforeAll(async () => {
  apple = await startAppleStandIn();
  server = await createTestServer();
  project = await server.createProject("Sign in with Apple");
  await project.configure({ "auth.oauth.providers.apple": appleProvider() });
});
afterAll(async () => {
  await server.close();
  await apple.close();
});

/**
 * Authorize, Apple's approval, and Apple's form POST to our callback; returns where the callback sends the browser
 * (errors too go to the app's redirect URI here).
 */
async function appleSignIn(target: TestProject, user: { sub: string; email: string }) {
  const flow = await startFlow(server, target, { providerId: "apple", errorRedirectUrl: null });
  const { code, state } = apple.approve(flow.providerUrl, user);
  const response = await server.request("/api/v1/auth/oauth/callback/apple", {
    method: "POST",
    headers: { cookie: flow.innerCookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ code, state }).toString(),
  });
  return { flow, location: appRedirect(response, flow) };
}

async function me(accessToken: string) {
  const response = await server.request("/api/v1/users/me", {
    headers: project.headers("server", { "x-stack-access-token": accessToken }),
  });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

function native(idToken: unknown, target: TestProject = project) {
  return server.request("/api/v1/auth/oauth/callback/apple/native", {
    method: "POST",
    headers: target.headers("client"),
    body: { id_token: idToken },
  });
}

describe("the browser flow", () => {
  it("sends the user to Apple with form_post, and signs in with a minted client secret and a verified ID token", async () => {
    const user = { sub: "001234.web", email: uniqueEmail("apple") };
    const { flow, location } = await appleSignIn(project, user);
    const request = new URL(flow.providerUrl);
    expect(`${request.origin}${request.pathname}`).toBe(`${apple.issuer}/auth/authorize`);
    expect(request.searchParams.get("response_mode")).toBe("form_post");
    expect(request.searchParams.get("scope")).toBe("name email");
    expect(request.searchParams.get("client_id")).toBe(SERVICES_ID);

    const secret = apple.tokenRequests.at(-1)!;
    expect(secret.ok, JSON.stringify(secret)).toBe(true);
    if (secret.ok) {
      expect(secret.header).toMatchObject({ alg: "ES256", kid: APPLE_KEY_ID });
      expect(secret.claims).toMatchObject({ iss: APPLE_TEAM_ID, sub: SERVICES_ID, aud: apple.issuer });
      expect(secret.claims.exp! - secret.claims.iat!).toBeLessThanOrEqual(300);
    }

    const tokens = await exchangeCode(server, project, {
      code: location.searchParams.get("code")!,
      verifier: flow.verifier,
      redirectUri: flow.redirectUri,
    });
    expect(tokens.status, tokens.text).toBe(200);
    expect(await me(tokens.body.access_token)).toMatchObject({
      primary_email: user.email,
      // Apple verified it (email_verified: "true").
      primary_email_verified: true,
      oauth_providers: [{ id: "apple", account_id: user.sub, email: user.email }],
    });
  });

  it("is refused when Apple refuses the client secret (a key that is not the team's)", async () => {
    const stranger = await server.createProject("Wrong Apple key");
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    await stranger.configure({
      "auth.oauth.providers.apple": appleProvider({ applePrivateKey: await exportPKCS8(privateKey) }),
    });
    const { location } = await appleSignIn(stranger, { sub: "001234.stranger", email: uniqueEmail("apple") });
    expect(redirectError(location).code).toBe("OAUTH_PROVIDER_ACCESS_DENIED");
    expect(apple.tokenRequests.at(-1)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("signature"),
    });
  });

  it("does not believe an ID token that is forged, expired, for another app or from another issuer", async () => {
    const userCount = async () => {
      const response = await server.request("/api/v1/users", { headers: project.headers("server") });
      expect(response.status, response.text).toBe(200);
      return response.body.items.length as number;
    };
    const before = await userCount();
    const now = Math.floor(Date.now() / 1000);
    for (const options of [
      { forged: true },
      { claims: { exp: now - 3600, iat: now - 7200 } },
      { claims: { aud: "com.example.other" } },
      { claims: { iss: "https://appleid.apple.com" } },
    ]) {
      apple.setNextIdToken(options);
      const sub = `001234.bad-${Math.random().toString(36).slice(2)}`;
      try {
        const { location } = await appleSignIn(project, { sub, email: uniqueEmail("apple") });
        expect(redirectError(location).code, JSON.stringify(options)).toBe("OAUTH_PROVIDER_ACCESS_DENIED");
      } finally {
        apple.setNextIdToken({});
      }
    }
    // Nobody was signed up by any of them.
    expect(await userCount()).toBe(before);
  });
});

describe("the native flow", () => {
  it("signs in with an identity token issued to the app's bundle id, the same user every time", async () => {
    const user = { sub: "001234.native", email: uniqueEmail("apple-native") };
    const first = await native(await apple.identityToken({ ...user, aud: BUNDLE_ID }));
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ is_new_user: true, user_id: expect.any(String) });
    expect(first.body.refresh_token).toMatch(/^[0-9a-z]{45}$/);
    expect(await me(first.body.access_token)).toMatchObject({
      id: first.body.user_id,
      primary_email: user.email,
      primary_email_verified: true,
      oauth_providers: [{ id: "apple", account_id: user.sub, email: user.email }],
    });
    const fetchedKeys = apple.counts.keyFetches;
    const second = await native(await apple.identityToken({ ...user, aud: BUNDLE_ID }));
    expect(second.body).toMatchObject({ is_new_user: false, user_id: first.body.user_id });
    // Apple's keys are cached between sign-ins.
    expect(fetchedKeys).toBeGreaterThan(0);
    expect(apple.counts.keyFetches).toBe(fetchedKeys);
  });

  it("finds the user who signed in with Apple in the browser", async () => {
    const user = { sub: "001234.both", email: uniqueEmail("apple-both") };
    const { flow, location } = await appleSignIn(project, user);
    const tokens = await exchangeCode(server, project, {
      code: location.searchParams.get("code")!,
      verifier: flow.verifier,
      redirectUri: flow.redirectUri,
    });
    const browserUser = await me(tokens.body.access_token);
    const response = await native(await apple.identityToken({ ...user, aud: BUNDLE_ID }));
    expect(response.body).toMatchObject({ is_new_user: false, user_id: browserUser.id });
  });

  it("refuses identity tokens that do not prove anything with INVALID_APPLE_CREDENTIALS", async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: "001234.x", email: uniqueEmail("apple-x"), aud: BUNDLE_ID };
    const hmac = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: "apple-stand-in" })
      .setIssuer(apple.issuer)
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(new TextEncoder().encode("a-secret-anyone-could-pick-0123456789"));
    const unsigned = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${Buffer.from(
      JSON.stringify({ ...claims, iss: apple.issuer, exp: now + 600, iat: now }),
    ).toString("base64url")}.`;
    for (const token of [
      await apple.identityToken({ ...claims, aud: SERVICES_ID }),
      await apple.identityToken({ ...claims, exp: now - 3600, iat: now - 7200 }),
      await apple.identityToken({ ...claims, iss: "https://appleid.apple.com" }),
      await apple.identityToken(claims, { forged: true }),
      hmac,
      unsigned,
      "not-a-jwt",
    ]) {
      expectKnownError(await native(token), 400, "INVALID_APPLE_CREDENTIALS");
    }
  });

  it("needs Apple turned on with at least one bundle id, and a well-formed request", async () => {
    const token = await apple.identityToken({ sub: "001234.y", aud: BUNDLE_ID });
    const bare = await server.createProject("No Apple");
    expectKnownError(await native(token, bare), 400, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
    await bare.configure({ "auth.oauth.providers.apple": appleProvider({ allowSignIn: false }) });
    expectKnownError(await native(token, bare), 400, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
    await bare.configure({ "auth.oauth.providers.apple": appleProvider({ appleBundles: null }) });
    expectKnownError(await native(token, bare), 400, "APPLE_BUNDLE_ID_NOT_CONFIGURED");

    for (const body of [{}, { id_token: "" }, { id_token: 42 }, { id_token: token, extra: true }]) {
      const response = await server.request("/api/v1/auth/oauth/callback/apple/native", {
        method: "POST",
        headers: project.headers("client"),
        body,
      });
      expectKnownError(response, 400, "SCHEMA_ERROR");
    }
    const anonymous = await server.request("/api/v1/auth/oauth/callback/apple/native", {
      method: "POST",
      body: { id_token: token },
    });
    expect(anonymous.status).toBeGreaterThanOrEqual(400);
    expect(anonymous.status).toBeLessThan(500);
  });
});

describe("Apple's client secret", () => {
  it("is an ES256 JWT with the key id, team, Services ID and audience, living 5 minutes", async () => {
    const now = new Date("2030-01-01T00:00:00Z");
    const secret = await appleClientSecret(
      { teamId: APPLE_TEAM_ID, keyId: APPLE_KEY_ID, privateKey: apple.teamPrivateKeyPem },
      { clientId: SERVICES_ID, audience: "https://appleid.apple.com", now },
    );
    const [header, payload] = secret
      .split(".")
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, "base64url").toString()));
    expect(header).toEqual({ alg: "ES256", kid: APPLE_KEY_ID });
    expect(payload).toEqual({
      iss: APPLE_TEAM_ID,
      sub: SERVICES_ID,
      aud: "https://appleid.apple.com",
      iat: now.getTime() / 1000,
      exp: now.getTime() / 1000 + 300,
    });
  });

  it("needs a P-256 key: anything else is a 400 that says so", async () => {
    const rsa = await generateKeyPair("RS256", { extractable: true });
    const p384 = await generateKeyPair("ES384", { extractable: true });
    for (const privateKey of [await exportPKCS8(rsa.privateKey), await exportPKCS8(p384.privateKey)]) {
      await expect(
        appleClientSecret(
          { teamId: APPLE_TEAM_ID, keyId: APPLE_KEY_ID, privateKey },
          { clientId: SERVICES_ID, audience: "https://appleid.apple.com" },
        ),
      ).rejects.toMatchObject({ code: "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED" });
    }
  });

  it("comes with all three Apple key settings or none, and only for Apple", async () => {
    const target = await server.createProject("Apple settings");
    for (const [provider, field] of [
      [{ ...appleProvider(), appleKeyId: undefined }, "appleKeyId"],
      [{ ...appleProvider(), appleTeamId: "team" }, "appleTeamId"],
      [{ ...appleProvider(), applePrivateKey: "not a key" }, "applePrivateKey"],
      [{ ...appleProvider(), type: "google", appleBundles: undefined }, "only for Apple"],
    ] as const) {
      const response = await server.request("/api/v1/internal/config/override/environment", {
        method: "PATCH",
        headers: target.headers("admin"),
        body: { config_override_string: JSON.stringify({ "auth.oauth.providers.apple": provider }) },
      });
      expect(response.status, response.text).toBe(400);
      expect(response.text).toContain(field);
    }
  });
});

describe("over a real listening server", () => {
  let listening: ListeningServer;
  beforeAll(async () => {
    listening = await startListeningServer();
  });
  afterAll(() => listening.close());

  it("signs a native app in", async () => {
    const target = await listening.createProject("Native over HTTP");
    await target.configure({ "auth.oauth.providers.apple": appleProvider() });
    const response = await fetch(`${listening.baseUrl}/api/v1/auth/oauth/callback/apple/native`, {
      method: "POST",
      headers: { ...target.headers("client"), "content-type": "application/json" },
      body: JSON.stringify({
        id_token: await apple.identityToken({
          sub: "001234.http",
          email: uniqueEmail("apple-http"),
          aud: BUNDLE_ID,
        }),
      }),
    });
    const body = (await response.json()) as { is_new_user: boolean; access_token: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.is_new_user).toBe(true);
    expect(body.access_token.split(".")).toHaveLength(3);
  });
});
