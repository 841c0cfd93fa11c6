/**
 * Providers at addresses the project chose: the generic OpenID Connect provider and a self-hosted GitLab, both
 * played by the real local OpenID provider (the development one, found through its discovery document), the whole
 * way through authorize, the provider's page, the callback and the code exchange. Also explicit endpoints instead
 * of discovery, and every way a project's issuer can be unusable (a clear 400, never a 5xx).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { devProviderEmail, getDevOAuthProvider } from "./dev-provider.ts";
import { resolveProvider } from "./resolve-provider.ts";
import { authorizeQuery, signInWithDevProvider, startFlow } from "./test-support.ts";

let server: TestServer;
let project: TestProject;
let issuer: string;

/** Registers a client at the local provider for one of our callback URLs, as an owner would at their issuer. */
async function clientAt(providerId: string) {
  const dev = await getDevOAuthProvider();
  return dev.registerClient(
    `${providerId}-app`,
    `http://localhost:8102/api/v1/auth/oauth/callback/${providerId}`,
  );
}

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Custom issuers");
  issuer = (await getDevOAuthProvider()).issuer;
  const corp = await clientAt("corp");
  const gitlab = await clientAt("gitlab");
  const manual = await clientAt("manual");
  await project.configure({
    "auth.oauth.providers.corp": {
      type: "custom_oidc",
      isShared: false,
      clientId: corp.clientId,
      clientSecret: corp.clientSecret,
      issuerUrl: issuer,
      displayName: "Corp SSO",
      scope: "openid email profile offline_access",
    },
    // Self-hosted GitLab: the instance's URL is its OpenID issuer.
    "auth.oauth.providers.gitlab": {
      type: "gitlab",
      isShared: false,
      clientId: gitlab.clientId,
      clientSecret: gitlab.clientSecret,
      issuerUrl: `${issuer}/`,
    },
    "auth.oauth.providers.manual": {
      type: "custom_oidc",
      isShared: false,
      clientId: manual.clientId,
      clientSecret: manual.clientSecret,
      authorizationEndpoint: `${issuer}/auth`,
      tokenEndpoint: `${issuer}/token`,
      userInfoEndpoint: `${issuer}/me`,
    },
  });
});
afterAll(() => server.close());

async function me(accessToken: string) {
  const response = await server.request("/api/v1/users/me", {
    headers: project.headers("server", { "x-stack-access-token": accessToken }),
  });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe("the generic OpenID Connect provider", () => {
  it("signs in through the issuer's discovered endpoints, asking for the configured scopes", async () => {
    const email = uniqueEmail("corp");
    const flow = await startFlow(server, project, { providerId: "corp" });
    const url = new URL(flow.providerUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${issuer}/auth`);
    expect(url.searchParams.get("scope")).toBe("openid email profile offline_access");
    expect(url.searchParams.get("redirect_uri")).toBe(
      "http://localhost:8102/api/v1/auth/oauth/callback/corp",
    );

    const { tokens } = await signInWithDevProvider(server, project, email, { providerId: "corp" });
    expect(tokens.is_new_user).toBe(true);
    const user = await me(tokens.access_token);
    // The issuer (the development provider standing in for a company's) claims the marked address, unverified.
    expect(user).toMatchObject({
      primary_email: devProviderEmail(email),
      primary_email_verified: false,
      oauth_providers: [{ id: "corp", account_id: email, email: devProviderEmail(email) }],
    });

    const again = await signInWithDevProvider(server, project, email, { providerId: "corp" });
    expect(again.tokens.is_new_user).toBe(false);
    expect((await me(again.tokens.access_token)).id).toBe(user.id);
  });

  it("is offered to apps under its own id", async () => {
    const response = await server.request("/api/v1/projects/current", { headers: project.headers("client") });
    expect(response.status, response.text).toBe(200);
    const ids = response.body.config.enabled_oauth_providers.map((p: { id: string }) => p.id);
    expect(ids).toEqual(expect.arrayContaining(["corp", "gitlab", "manual"]));
    expect(ids).not.toContain("custom_oidc");
  });

  it("works with endpoints given one by one instead of an issuer", async () => {
    const email = uniqueEmail("manual");
    const { tokens } = await signInWithDevProvider(server, project, email, { providerId: "manual" });
    expect((await me(tokens.access_token)).oauth_providers).toEqual([
      { id: "manual", account_id: email, email: devProviderEmail(email) },
    ]);
  });

  it("verifies the ID token against the issuer's keys and checks the userinfo is about the same user", async () => {
    const config = await getRenderedConfig(server.deps, project.id);
    const resolved = await resolveProvider(
      server.deps.env,
      { configId: "corp", provider: config.auth.oauth.providers.corp! },
      "http://localhost:8102/api/v1/auth/oauth/callback/corp",
    );
    expect(resolved.idTokens).toEqual({ issuer, jwksUri: `${issuer}/jwks` });
    expect(resolved.as.authorization_response_iss_parameter_supported).toBe(true);
    // Explicit endpoints have no issuer, so there are no keys to check an ID token with: the userinfo is the source.
    const manual = await resolveProvider(
      server.deps.env,
      { configId: "manual", provider: config.auth.oauth.providers.manual! },
      "http://localhost:8102/api/v1/auth/oauth/callback/manual",
    );
    expect(manual.idTokens).toBeNull();
    expect(manual.userInfoEndpoint).toBe(`${issuer}/me`);
  });
});

describe("a self-hosted GitLab", () => {
  it("signs in through the instance's OpenID endpoints, with GitLab's scope and OpenID's", async () => {
    const email = uniqueEmail("gitlab");
    const flow = await startFlow(server, project, { providerId: "gitlab" });
    const url = new URL(flow.providerUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${issuer}/auth`);
    expect(url.searchParams.get("scope")?.split(" ").sort()).toEqual([
      "email",
      "openid",
      "profile",
      "read_user",
    ]);
    const { tokens } = await signInWithDevProvider(server, project, email, { providerId: "gitlab" });
    expect((await me(tokens.access_token)).oauth_providers).toEqual([
      { id: "gitlab", account_id: email, email: devProviderEmail(email) },
    ]);
  });
});

/** A local HTTP server answering with `handle`; counts its requests. */
async function stub(handle: (req: IncomingMessage, res: ServerResponse, base: string) => void) {
  const requests: string[] = [];
  const http = createServer((req, res) => {
    requests.push(req.url ?? "");
    handle(req, res, base);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    base,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

describe("a project's issuer that cannot be used", () => {
  let broken: TestProject;
  beforeAll(async () => {
    broken = await server.createProject("Broken issuers");
  });

  async function authorizeWithIssuer(issuerUrl: string) {
    await broken.configure({
      "auth.oauth.providers.sso": {
        type: "custom_oidc",
        isShared: false,
        clientId: "app",
        clientSecret: "secret",
        issuerUrl,
      },
    });
    const { query } = authorizeQuery(broken);
    return server.request(`/api/v1/auth/oauth/authorize/sso?${query}`);
  }

  it("is refused at authorize with a 400 that says why", async () => {
    const missing = await stub((_req, res) => json(res, 404, { error: "not found" }));
    const impostor = await stub((_req, res) =>
      json(res, 200, {
        issuer: "https://elsewhere.example",
        authorization_endpoint: "https://elsewhere.example/a",
      }),
    );
    const noKeys = await stub((_req, res, base) =>
      json(res, 200, { issuer: base, authorization_endpoint: `${base}/a`, token_endpoint: `${base}/t` }),
    );
    const insecureEndpoints = await stub((_req, res, base) =>
      json(res, 200, {
        issuer: base,
        authorization_endpoint: "http://login.example.com/a",
        token_endpoint: `${base}/t`,
        jwks_uri: `${base}/k`,
      }),
    );
    try {
      for (const [issuerUrl, reason] of [
        [missing.base, "could not be fetched"],
        [impostor.base, "not usable"],
        [noKeys.base, "no jwks_uri"],
        [insecureEndpoints.base, "must use https"],
        // Plain http is for this machine only.
        ["http://login.example.com", "must use https"],
      ] as const) {
        const response = await authorizeWithIssuer(issuerUrl);
        expectKnownError(response, 400, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
        expect(response.body.error, issuerUrl).toContain(reason);
      }
    } finally {
      await Promise.all([missing.close(), impostor.close(), noKeys.close(), insecureEndpoints.close()]);
    }
  });

  it("gives up on an issuer that does not answer within 5 seconds", async () => {
    const silent = await stub(() => {});
    try {
      const response = await authorizeWithIssuer(silent.base);
      expectKnownError(response, 400, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
      expect(response.body.error).toContain("could not be fetched");
    } finally {
      await silent.close();
    }
  }, 15_000);

  it("reads a working issuer's document once, not at every sign-in", async () => {
    const counted = await stub((req, res, base) => {
      if (req.url === "/.well-known/openid-configuration") {
        json(res, 200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          jwks_uri: `${base}/jwks`,
        });
      } else json(res, 404, {});
    });
    try {
      for (let i = 0; i < 3; i++) {
        const response = await authorizeWithIssuer(counted.base);
        expect(response.status, response.text).toBe(307);
        expect(response.headers.get("location")).toMatch(new RegExp(`^${counted.base}/authorize\\?`));
      }
      expect(counted.requests).toEqual(["/.well-known/openid-configuration"]);
    } finally {
      await counted.close();
    }
  });
});

describe("provider settings in the config", () => {
  it("refuses what cannot work with a 400 when it is written", async () => {
    const target = await server.createProject("Bad provider settings");
    const write = (provider: Record<string, unknown>) =>
      server.request("/api/v1/internal/config/override/environment", {
        method: "PATCH",
        headers: target.headers("admin"),
        body: { config_override_string: JSON.stringify({ "auth.oauth.providers.sso": provider }) },
      });
    const bad: [Record<string, unknown>, string][] = [
      [{ type: "custom_oidc", isShared: false, clientId: "a", clientSecret: "b" }, "needs issuerUrl"],
      [{ type: "custom_oidc", clientId: "a", issuerUrl: "https://id.example.com" }, "has no shared keys"],
      [
        { type: "custom_oidc", isShared: false, authorizationEndpoint: "https://id.example.com/a" },
        "needs issuerUrl",
      ],
      [{ type: "github", isShared: true, issuerUrl: "https://id.example.com" }, "own OAuth app"],
      [{ type: "github", isShared: false, tokenEndpoint: "ftp://id.example.com/token" }, "tokenEndpoint"],
      [
        { type: "github", isShared: false, userInfoEndpoint: "https://u:pw@id.example.com/me" },
        "userInfoEndpoint",
      ],
      [{ type: "github", isShared: false, authorizationEndpoint: "https://id.example.com/a#x" }, "#fragment"],
      [{ type: "github", isShared: false, authorizationEndpoint: "/relative" }, "authorizationEndpoint"],
      [
        { type: "github", isShared: false, scope: "read:user" },
        "only for the generic OpenID Connect provider",
      ],
      [{ type: "google", isShared: false, displayName: "Google" }, "displayName"],
      [{ type: "custom_oidc", isShared: false, issuerUrl: "https://id.example.com", scope: 'a"b' }, "scope"],
      [{ type: "openid", isShared: false }, "type"],
    ];
    for (const [provider, message] of bad) {
      const response = await write(provider);
      expect(response.status, `${JSON.stringify(provider)}: ${response.text}`).toBe(400);
      expect(response.text, JSON.stringify(provider)).toContain(message);
    }
    // The same settings, right, are taken.
    const good = await write({ type: "custom_oidc", isShared: false, issuerUrl: "https://id.example.com" });
    expect(good.status, good.text).toBe(200);
  });
});
