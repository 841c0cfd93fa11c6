/** `GET /auth/oauth/authorize/:provider_id`: what is checked before the browser leaves for the provider. */
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";
import {
  authorizeQuery,
  deliverCallback,
  exchangeCode,
  type FlowOptions,
  signInAtDevProvider,
} from "./test-support.ts";

let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("OAuth authorize");
  other = await server.createProject("Another project");
  await project.configure({
    "auth.oauth.providers.github": { isShared: true },
    "auth.oauth.providers.spotify": { isShared: true, allowSignIn: false },
    "auth.oauth.providers.discord": { isShared: false },
    "domains.trustedDomains.app": { baseUrl: "https://app.example.com" },
  });
});
afterAll(() => server.close());

function authorize(
  options: FlowOptions & { providerId?: string; edit?: (query: URLSearchParams) => void } = {},
  target: TestProject = project,
) {
  const { query } = authorizeQuery(target, options);
  options.edit?.(query);
  return server.request(`/api/v1/auth/oauth/authorize/${options.providerId ?? "github"}?${query}`);
}

describe("the OAuth client", () => {
  it("refuses a wrong publishable key as any request with one, before looking at the rest of the query", async () => {
    for (const edit of [
      (q: URLSearchParams) => q.set("client_secret", "pck_wrong"),
      (q: URLSearchParams) => q.set("client_secret", other.keys.publishableClientKey),
      // The key is checked first: a malformed query with a wrong key still hears about the key.
      (q: URLSearchParams) => {
        q.set("client_secret", "pck_wrong");
        q.delete("redirect_uri");
        q.set("code_challenge", "short");
      },
    ]) {
      expectKnownError(await authorize({ edit }), 401, "INVALID_PUBLISHABLE_CLIENT_KEY");
    }
    // With the right key, the malformed query is what is wrong.
    expectKnownError(await authorize({ edit: (q) => q.set("code_challenge", "short") }), 400, "SCHEMA_ERROR");
  });

  it("refuses an unknown project and a branch other than main", async () => {
    for (const edit of [
      (q: URLSearchParams) => q.set("client_id", "2c6b3cf4-4a4f-4a43-9a73-3b8e8f0c9a11"),
      (q: URLSearchParams) => q.set("client_id", `${project.id}#dev`),
      // A NUL byte PostgreSQL cannot compare: still just an unknown project, not a failed query.
      (q: URLSearchParams) => q.set("client_id", "nul\u0000byte"),
    ]) {
      expectKnownError(await authorize({ edit }), 400, "INVALID_OAUTH_CLIENT_ID_OR_SECRET");
    }
  });

  it("accepts the no-key sentinel unless the project requires publishable keys", async () => {
    const sentinel = { clientSecret: "__stack_public_client__" };
    expect((await authorize(sentinel)).status).toBe(307);
    const strict = await server.createProject("Strict keys");
    await strict.configure({ "auth.oauth.providers.github": { isShared: true } });
    await strict.configure({ "project.requirePublishableClientKey": true }, "project");
    expectKnownError(await authorize(sentinel, strict), 401, "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT");
    expect((await authorize({}, strict)).status).toBe(307);
  });

  it("takes client_id with the main branch", async () => {
    expect((await authorize({ edit: (q) => q.set("client_id", `${project.id}#main`) })).status).toBe(307);
  });
});

describe("the request", () => {
  it("only knows the legacy scope", async () => {
    expectKnownError(await authorize({ edit: (q) => q.set("scope", "openid") }), 400, "INVALID_SCOPE");
  });

  it("tolerates parameters it does not know", async () => {
    const response = await authorize({
      edit: (q) => {
        q.set("bot_challenge_token", "x");
        q.set("something_new", "1");
      },
    });
    expect(response.status, response.text).toBe(307);
  });

  it("needs its OAuth parameters", async () => {
    for (const edit of [
      (q: URLSearchParams) => q.delete("state"),
      (q: URLSearchParams) => q.delete("redirect_uri"),
      (q: URLSearchParams) => q.delete("code_challenge"),
      (q: URLSearchParams) => q.set("code_challenge", "too-short"),
      (q: URLSearchParams) => q.set("code_challenge_method", "S512"),
      (q: URLSearchParams) => q.set("response_type", "token"),
      (q: URLSearchParams) => q.set("grant_type", "implicit"),
      (q: URLSearchParams) => q.set("type", "steal"),
      (q: URLSearchParams) => q.delete("client_id"),
    ]) {
      expectKnownError(await authorize({ edit }), 400, "SCHEMA_ERROR");
    }
  });

  it("needs a configured provider that allows sign-in", async () => {
    for (const providerId of ["google", "spotify", "nope", "%E2%9C%93"]) {
      expectKnownError(await authorize({ providerId }), 400, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
    }
  });

  it("needs client credentials for a standard provider", async () => {
    const response = await authorize({ providerId: "discord" });
    expectKnownError(response, 400, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
    expect(response.body.error).toContain("no client id");
  });

  it("only sends the browser to trusted redirect URLs", async () => {
    for (const edit of [
      (q: URLSearchParams) => q.set("redirect_uri", "https://evil.example.org/callback"),
      (q: URLSearchParams) => q.set("redirect_uri", "javascript:alert(1)"),
      (q: URLSearchParams) => q.set("error_redirect_url", "https://evil.example.org/error"),
      (q: URLSearchParams) => q.set("after_callback_redirect_url", "https://evil.example.org/after"),
    ]) {
      expectKnownError(await authorize({ edit }), 400, "REDIRECT_URL_NOT_WHITELISTED");
    }
    const trusted = await authorize({
      redirectUri: "https://app.example.com/handler/oauth-callback",
      errorRedirectUrl: "https://app.example.com/handler/error",
    });
    expect(trusted.status, trusted.text).toBe(307);
  });

  it("refuses extra provider scopes with shared keys", async () => {
    expectKnownError(
      await authorize({ providerScope: "repo" }),
      400,
      "OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS",
    );
  });

  it("reports an untrusted URL and shared-key scopes before any problem with the code challenge", async () => {
    // The reference checks no challenge here, so these are what its clients hear about first.
    for (const badChallenge of [
      (q: URLSearchParams) => q.set("code_challenge", "too-short"),
      (q: URLSearchParams) => q.set("code_challenge_method", "S512"),
      (q: URLSearchParams) => q.set("code_challenge", "x".repeat(129)),
    ]) {
      const untrusted = await authorize({
        edit: (q) => {
          badChallenge(q);
          q.set("after_callback_redirect_url", "https://evil.example.org/after");
        },
      });
      expectKnownError(untrusted, 400, "REDIRECT_URL_NOT_WHITELISTED");
      const scoped = await authorize({ providerScope: "repo", edit: badChallenge });
      expectKnownError(scoped, 400, "OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS");
      // With nothing else wrong, the challenge is.
      expectKnownError(await authorize({ edit: badChallenge }), 400, "SCHEMA_ERROR");
    }
  });
});

describe("code challenges", () => {
  const withChallenge = (method: string | null, challenge: string) =>
    authorize({
      edit: (q) => {
        q.set("code_challenge", challenge);
        if (method === null) q.delete("code_challenge_method");
        else q.set("code_challenge_method", method);
      },
    });
  const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

  it("takes what the reference takes: S256, plain, and an empty method meaning plain", async () => {
    for (const [method, challenge] of [
      ["S256", s256(randomBytes(32).toString("base64url"))],
      ["S256", s256("a".repeat(128))],
      ["plain", "a".repeat(43)],
      ["plain", `${"A-._~".repeat(25)}xyz`],
      ["", "b".repeat(43)],
    ] as const) {
      const response = await withChallenge(method, challenge);
      expect(response.status, `${method} ${challenge}: ${response.text}`).toBe(307);
    }
  });

  it("refuses other methods, and challenges that no verifier could ever match", async () => {
    const good = s256(randomBytes(32).toString("base64url"));
    for (const [method, challenge] of [
      ["s256", good],
      ["PLAIN", "a".repeat(43)],
      ["S512", good],
      [null, good],
      ["S256", `${good}=`],
      ["S256", `${good.slice(0, 42)}.`],
      ["S256", good.slice(0, 42)],
      ["S256", `${good}A`],
      ["plain", "a".repeat(42)],
      ["plain", "a".repeat(129)],
      ["plain", `${"a".repeat(42)}+`],
      ["plain", ""],
      ["S256", ""],
    ] as const) {
      const response = await withChallenge(method, challenge);
      expectKnownError(response, 400, "SCHEMA_ERROR");
      expect(response.text, `${method} ${challenge}`).toMatch(/code_challenge/);
    }
  });

  it("with an empty method, the verifier is the challenge itself at the code exchange", async () => {
    const { query, verifier, redirectUri } = authorizeQuery(project, { codeChallengeMethod: "plain" });
    query.set("code_challenge_method", "");
    const started = await server.request(`/api/v1/auth/oauth/authorize/github?${query}`);
    expect(started.status, started.text).toBe(307);
    const callback = await signInAtDevProvider(started.headers.get("location")!, uniqueEmail("plain"));
    const innerCookie = (started.headers.get("set-cookie") ?? "").split(";")[0]!;
    const delivered = await deliverCallback(server, callback, innerCookie);
    expect(delivered.status, delivered.text).toBe(303);
    const code = new URL(delivered.headers.get("location")!).searchParams.get("code")!;
    const hashed = await exchangeCode(server, project, { code, verifier: s256(verifier), redirectUri });
    expectKnownError(hashed, 400, "INVALID_AUTHORIZATION_CODE");
    const plain = await exchangeCode(server, project, { code, verifier, redirectUri });
    expect(plain.status, plain.text).toBe(200);
  });
});

describe("the token parameter", () => {
  it("is required to link an account", async () => {
    expectKnownError(await authorize({ type: "link" }), 401, "USER_AUTHENTICATION_REQUIRED");
  });

  it("must be a valid access token of this project", async () => {
    expectKnownError(await authorize({ token: "not-a-jwt" }), 401, "UNPARSABLE_ACCESS_TOKEN");
    const stranger = await createSignedInUser(server, other.id);
    expectKnownError(
      await authorize({ token: stranger.accessToken }),
      401,
      "INVALID_PROJECT_FOR_ACCESS_TOKEN",
    );
    const own = await createSignedInUser(server, project.id);
    expect((await authorize({ type: "link", token: own.accessToken })).status).toBe(307);
  });
});

describe("shared providers outside development", () => {
  it("use server-operator credentials, and are unavailable without them", async () => {
    const production = await createTestServer({
      isDevelopment: false,
      baseUrl: "https://auth.example.com",
      sharedOAuthCredentials: { github: { clientId: "operator-client", clientSecret: "operator-secret" } },
    });
    try {
      const target = await production.createProject("Production");
      await target.configure({
        "auth.oauth.providers.github": { isShared: true },
        "auth.oauth.providers.google": { isShared: true },
      });
      const { query } = authorizeQuery(target);
      expectKnownError(
        await production.request(`/api/v1/auth/oauth/authorize/google?${query}`),
        400,
        "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED",
      );
      const response = await production.request(`/api/v1/auth/oauth/authorize/github?${query}`);
      expect(response.status, response.text).toBe(307);
      const location = new URL(response.headers.get("location")!);
      expect(`${location.origin}${location.pathname}`).toBe("https://github.com/login/oauth/authorize");
      expect(location.searchParams.get("client_id")).toBe("operator-client");
      expect(location.searchParams.get("scope")).toBe("user:email");
      // Over HTTPS the flow's cookie is Secure, and SameSite=Lax: it comes back with the provider's redirect only.
      expect(response.headers.get("set-cookie")).toMatch(/; Max-Age=600; Secure; HttpOnly; SameSite=Lax$/);
    } finally {
      await production.close();
    }
  });

  it("are unavailable in development when the development provider is turned off", async () => {
    const quiet = await createTestServer({ devOAuthProvider: false });
    try {
      const target = await quiet.createProject("No dev provider");
      await target.configure({ "auth.oauth.providers.github": { isShared: true } });
      const { query } = authorizeQuery(target);
      expectKnownError(
        await quiet.request(`/api/v1/auth/oauth/authorize/github?${query}`),
        400,
        "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED",
      );
    } finally {
      await quiet.close();
    }
  });
});

describe("standard providers", () => {
  it("use the project's own client id, with the provider's endpoints, tenant and extra scopes", async () => {
    await project.configure({
      "auth.oauth.providers.microsoft": {
        isShared: false,
        clientId: "project-client",
        clientSecret: "project-secret",
        microsoftTenantId: "contoso.example",
      },
    });
    const response = await authorize({ providerId: "microsoft", providerScope: "Calendars.Read" });
    expect(response.status, response.text).toBe(307);
    const location = new URL(response.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(
      "https://login.microsoftonline.com/contoso.example/oauth2/v2.0/authorize",
    );
    expect(location.searchParams.get("client_id")).toBe("project-client");
    expect(location.searchParams.get("scope")?.split(" ")).toContain("Calendars.Read");
  });

  it("go where the project's endpoint overrides say (GitHub Enterprise)", async () => {
    await project.configure({
      "auth.oauth.providers.github-enterprise": {
        type: "github",
        isShared: false,
        clientId: "ghe-client",
        clientSecret: "ghe-secret",
        authorizationEndpoint: "https://ghe.example.com/login/oauth/authorize",
        tokenEndpoint: "https://ghe.example.com/login/oauth/access_token",
        userInfoEndpoint: "https://ghe.example.com/api/v3/user",
      },
    });
    const response = await authorize({ providerId: "github-enterprise" });
    expect(response.status, response.text).toBe(307);
    const location = new URL(response.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe("https://ghe.example.com/login/oauth/authorize");
    expect(location.searchParams.get("client_id")).toBe("ghe-client");
    expect(location.searchParams.get("scope")).toBe("user:email");
  });
});

describe("the flow cookie's attributes", () => {
  it("are Lax and not Secure on plain HTTP, Secure over HTTPS, and None only for a cross-site POST over HTTPS", async () => {
    const { stateCookieAttributes } = await import("./authorize.ts");
    expect(stateCookieAttributes("http://localhost:8102", false)).toEqual(["HttpOnly", "SameSite=Lax"]);
    expect(stateCookieAttributes("https://auth.example.com", false)).toEqual([
      "Secure",
      "HttpOnly",
      "SameSite=Lax",
    ]);
    expect(stateCookieAttributes("https://auth.example.com", true)).toEqual([
      "Secure",
      "HttpOnly",
      "SameSite=None",
    ]);
    // SameSite=None without Secure is dropped by browsers, so plain HTTP stays Lax even for form_post.
    expect(stateCookieAttributes("http://localhost:8102", true)).toEqual(["HttpOnly", "SameSite=Lax"]);
  });
});
