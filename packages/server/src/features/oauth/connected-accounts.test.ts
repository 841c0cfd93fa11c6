/**
 * Connected accounts with a "standard" provider (project keys) whose endpoints are the development provider's
 * (client id MOCK): provider access tokens, scopes, refresh with the provider, and who may ask.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { expireRows } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { encryptProviderToken } from "./accounts.ts";
import { devProviderEmail } from "./dev-provider.ts";
import { oauthAccounts, oauthTokens } from "./schema.ts";
import { signInWithDevProvider } from "./test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Connected accounts");
  await project.configure({
    "auth.oauth.providers.github": { isShared: false, clientId: "MOCK", clientSecret: "MOCK" },
    "auth.oauth.providers.gitlab": { isShared: true },
    "auth.oauth.providers.discord": { isShared: false, clientId: "MOCK", clientSecret: "MOCK" },
  });
});
afterAll(() => server.close());

/** A user signed in through the standard provider, with the provider's issuer for checking its tokens. */
async function connectedUser(providerScope?: string) {
  const email = uniqueEmail("connected");
  const { flow, tokens } = await signInWithDevProvider(server, project, email, {
    ...(providerScope ? { providerScope } : {}),
  });
  return {
    email,
    issuer: new URL(flow.providerUrl).origin,
    client: project.headers("client", { "x-stack-access-token": tokens.access_token }),
    server: project.headers("server", { "x-stack-access-token": tokens.access_token }),
    userId: (
      await server.request("/api/v1/users/me", {
        headers: project.headers("client", { "x-stack-access-token": tokens.access_token }),
      })
    ).body.id as string,
  };
}

function accessToken(headers: Record<string, string>, body: unknown = {}, path = "me/github") {
  return server.request(`/api/v1/connected-accounts/${path}/access-token`, { method: "POST", headers, body });
}

/** The provider's own opinion of an access token: its userinfo endpoint. */
async function providerUser(issuer: string, token: string) {
  const response = await fetch(`${issuer}/me`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: response.status === 200 ? await response.json() : null };
}

async function storedTokens(userId: string) {
  return server.deps.db
    .select({ token: oauthTokens })
    .from(oauthTokens)
    .innerJoin(oauthAccounts, eq(oauthAccounts.id, oauthTokens.oauthAccountId))
    .where(eq(oauthAccounts.userId, userId));
}

describe("provider access tokens", () => {
  it("are handed out for a connected account and work at the provider", async () => {
    const user = await connectedUser();
    const listed = await server.request("/api/v1/connected-accounts/me", { headers: user.client });
    expect(listed.body).toEqual({
      items: [{ user_id: user.userId, provider: "github", provider_account_id: user.email }],
      is_paginated: false,
    });
    const response = await accessToken(user.client);
    expect(response.status, response.text).toBe(201);
    expect(await providerUser(user.issuer, response.body.access_token)).toEqual({
      status: 200,
      body: { sub: user.email, email: devProviderEmail(user.email), email_verified: false },
    });
    // At rest the provider's tokens are encrypted.
    const [stored] = await storedTokens(user.userId);
    expect(stored!.token.accessTokenEncrypted).not.toContain(response.body.access_token);
    expect(stored!.token.accessTokenEncrypted).toMatch(/^v1\./);
    expect(stored!.token.refreshTokenEncrypted).toMatch(/^v1\./);
  });

  it("are refreshed with the provider once the stored one has expired", async () => {
    const user = await connectedUser();
    const before = (await accessToken(user.client)).body.access_token as string;
    const [stored] = await storedTokens(user.userId);
    await expireRows(server, oauthTokens, eq(oauthTokens.id, stored!.token.id));
    const response = await accessToken(user.client);
    expect(response.status, response.text).toBe(201);
    const after = response.body.access_token as string;
    expect(after).not.toBe(before);
    expect((await providerUser(user.issuer, after)).status).toBe(200);
    const [refreshed] = await storedTokens(user.userId);
    expect(refreshed!.token.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 10 * 60 * 1000);
    // The fresh one is now served from storage.
    expect((await accessToken(user.client)).body.access_token).toBe(after);
  });

  it("report no token when the provider refuses the refresh, and forget the dead grant", async () => {
    const user = await connectedUser();
    const [stored] = await storedTokens(user.userId);
    await expireRows(server, oauthTokens, eq(oauthTokens.id, stored!.token.id));
    await server.deps.db
      .update(oauthTokens)
      .set({ refreshTokenEncrypted: encryptProviderToken(server.deps.env, "revoked-at-the-provider") })
      .where(eq(oauthTokens.id, stored!.token.id));
    expectKnownError(await accessToken(user.client), 400, "OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE");
    expect(await storedTokens(user.userId)).toEqual([]);
  });

  it("need the scopes asked for", async () => {
    const user = await connectedUser("dev:read");
    expect((await accessToken(user.client, { scope: "dev:read" })).status).toBe(201);
    expect((await accessToken(user.client, { scope: "openid dev:read" })).status).toBe(201);
    expectKnownError(
      await accessToken(user.client, { scope: "dev:write" }),
      400,
      "OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE",
    );
  });

  it("can name the provider account, and servers can ask for any user", async () => {
    const user = await connectedUser();
    const byServer = await accessToken(
      project.headers("server"),
      {},
      `${user.userId}/github/${encodeURIComponent(user.email)}`,
    );
    expect(byServer.status, byServer.text).toBe(201);
    expectKnownError(
      await accessToken(user.client, {}, "me/github/someone-else@example.com"),
      400,
      "OAUTH_CONNECTION_NOT_CONNECTED_TO_USER",
    );
  });

  it("are refused for accounts that are not connected, or not allowed for connected-account use", async () => {
    const stranger = await createSignedInUser(server, project.id);
    const headers = project.headers("client", { "x-stack-access-token": stranger.accessToken });
    expectKnownError(await accessToken(headers), 400, "OAUTH_CONNECTION_NOT_CONNECTED_TO_USER");

    const user = await connectedUser();
    await server.deps.db
      .update(oauthAccounts)
      .set({ allowConnectedAccounts: false })
      .where(eq(oauthAccounts.userId, user.userId));
    expectKnownError(await accessToken(user.client), 400, "OAUTH_CONNECTION_NOT_CONNECTED_TO_USER");
    const listed = await server.request("/api/v1/connected-accounts/me", { headers: user.client });
    expect(listed.body.items).toEqual([]);
  });

  it("are never available with shared keys, nor for unknown providers", async () => {
    const user = await connectedUser();
    expectKnownError(
      await accessToken(user.client, {}, "me/gitlab"),
      400,
      "OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS",
    );
    expectKnownError(
      await accessToken(user.client, {}, "me/google"),
      400,
      "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED",
    );
  });

  it("are only for the user themself on client access", async () => {
    const user = await connectedUser();
    const other = await createSignedInUser(server, project.id);
    const headers = project.headers("client", { "x-stack-access-token": other.accessToken });
    expect((await accessToken(headers, {}, `${user.userId}/github`)).status).toBe(403);
    expect((await server.request(`/api/v1/connected-accounts/${user.userId}`, { headers })).status).toBe(403);
    expectKnownError(await accessToken(project.headers("client")), 400, "CANNOT_GET_OWN_USER_WITHOUT_USER");
    expectKnownError(
      await accessToken(project.headers("server"), {}, "0b0e7b5a-3c1d-4f4e-9a57-8d7f2b6c1e90/github"),
      404,
      "USER_NOT_FOUND",
    );
    expectKnownError(await accessToken(user.client, { scope: 42 }), 400, "SCHEMA_ERROR");
  });
});

describe("the legacy route POST /auth/oauth/connected-accounts/:provider/access-token", () => {
  const legacy = (headers: Record<string, string>, provider: string, body: unknown = {}) =>
    server.request(`/api/v1/auth/oauth/connected-accounts/${provider}/access-token`, {
      method: "POST",
      headers,
      body,
    });

  it("answers for the signed-in user as the current route does, on client and server access", async () => {
    const user = await connectedUser("dev:read");
    const current = await accessToken(user.client, { scope: "dev:read" });
    expect(current.status, current.text).toBe(201);
    for (const headers of [user.client, user.server]) {
      const response = await legacy(headers, "github", { scope: "dev:read" });
      expect(response.status, response.text).toBe(201);
      expect(response.body).toEqual({ access_token: current.body.access_token });
    }
    expect((await providerUser(user.issuer, current.body.access_token)).body.sub).toBe(user.email);
    expect((await legacy(user.client, "github")).status).toBe(201);
  });

  it("gives the current route's known errors", async () => {
    const user = await connectedUser();
    expectKnownError(await legacy(user.client, "discord"), 400, "OAUTH_CONNECTION_NOT_CONNECTED_TO_USER");
    expectKnownError(
      await accessToken(user.client, {}, "me/discord"),
      400,
      "OAUTH_CONNECTION_NOT_CONNECTED_TO_USER",
    );
    expectKnownError(
      await legacy(user.client, "github", { scope: "dev:write" }),
      400,
      "OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE",
    );
    expectKnownError(await legacy(user.client, "google"), 400, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
    expectKnownError(
      await legacy(project.headers("server"), "github"),
      400,
      "CANNOT_GET_OWN_USER_WITHOUT_USER",
    );
    expectKnownError(await legacy(user.client, "github", { scope: 42 }), 400, "SCHEMA_ERROR");
  });
});
