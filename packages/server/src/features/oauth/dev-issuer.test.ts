/**
 * Issue 35 item 2: in development, `GATEHOUSE_DEV_OAUTH_ISSUER_URL` names an OpenID issuer that shared providers
 * discover and sign in at instead of the built-in stand-in, as the reference uses its mock server: client id = the
 * provider's type, secret `MOCK-SERVER-SECRET` (client_secret_basic, as the mock's clients are registered), scope
 * `openid offline_access`, and the userinfo `sub` as the account id and a verified email. The issuer here is a real
 * OpenID provider set up as the reference's mock server is (its userinfo is `sub` alone). Refused in production.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readServerEnv } from "../../env.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { uniqueEmail } from "../../testing/known-errors.ts";
import { DEV_ISSUER_CLIENT_SECRET } from "./dev-issuer.ts";
import { type DevOAuthProvider, startOidcStandIn } from "./dev-provider.ts";
import { signInWithDevProvider, startFlow } from "./test-support.ts";

let mock: DevOAuthProvider;
let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  mock = await startOidcStandIn({
    clientSecret: DEV_ISSUER_CLIENT_SECRET,
    tokenEndpointAuthMethod: "client_secret_basic",
    claimsOf: (sub) => ({ sub }),
  });
  for (const provider of ["github", "google"]) {
    mock.registerClient(provider, `http://localhost:8102/api/v1/auth/oauth/callback/${provider}`);
  }
  server = await createTestServer({ devOAuthIssuerUrl: mock.issuer });
  project = await server.createProject("Development issuer");
  await project.configure({
    "auth.oauth.providers.github": { type: "github", isShared: true, allowSignIn: true },
    "auth.oauth.providers.google": { type: "google", isShared: true, allowSignIn: true },
  });
});
afterAll(() => server.close());

describe("shared providers with a development issuer", () => {
  it("send the browser to the issuer's discovered endpoint with the provider's id and the reference's scope", async () => {
    for (const providerId of ["github", "google"]) {
      const flow = await startFlow(server, project, { providerId });
      const url = new URL(flow.providerUrl);
      expect(`${url.origin}${url.pathname}`).toBe(`${mock.issuer}/auth`);
      expect(url.searchParams.get("client_id")).toBe(providerId);
      expect(url.searchParams.get("scope")).toBe("openid offline_access");
      expect(url.searchParams.get("redirect_uri")).toBe(
        `http://localhost:8102/api/v1/auth/oauth/callback/${providerId}`,
      );
    }
  });

  it("sign in with the userinfo sub as account id and verified email, and find the account again", async () => {
    const email = uniqueEmail("mock");
    const { tokens } = await signInWithDevProvider(server, project, email);
    expect(tokens.is_new_user).toBe(true);
    const me = await server.request("/api/v1/users/me", {
      headers: project.headers("server", { "x-stack-access-token": tokens.access_token }),
    });
    expect(me.status, me.text).toBe(200);
    expect(me.body).toMatchObject({
      primary_email: email,
      primary_email_verified: true,
      oauth_providers: [{ id: "github", account_id: email, email }],
    });

    const again = await signInWithDevProvider(server, project, email);
    expect(again.tokens.is_new_user).toBe(false);
    const meAgain = await server.request("/api/v1/users/me", {
      headers: project.headers("server", { "x-stack-access-token": again.tokens.access_token }),
    });
    expect(meAgain.body.id).toBe(me.body.id);
  });
});

describe("the setting", () => {
  it("is refused outside development, under either name", () => {
    for (const name of ["GATEHOUSE_DEV_OAUTH_ISSUER_URL", "STACK_OAUTH_MOCK_URL"]) {
      expect(() =>
        readServerEnv({
          NODE_ENV: "production",
          GATEHOUSE_SECRET: "x".repeat(48),
          GATEHOUSE_BASE_URL: "https://auth.example.com",
          GATEHOUSE_DATA_DIR: "/nonexistent/gatehouse-dev-issuer-test",
          [name]: "http://localhost:8114",
        }),
      ).toThrow(new RegExp(`^${name} is for development only`));
    }
  });

  it("is read in development, kept as written", () => {
    const env = readServerEnv({
      GATEHOUSE_DATA_DIR: "/nonexistent/gatehouse-dev-issuer-test",
      GATEHOUSE_SECRET: "x".repeat(48),
      STACK_OAUTH_MOCK_URL: "http://localhost:8114/",
    });
    expect(env.devOAuthIssuerUrl).toBe("http://localhost:8114/");
    expect(() =>
      readServerEnv({
        GATEHOUSE_DATA_DIR: "/nonexistent/gatehouse-dev-issuer-test",
        GATEHOUSE_SECRET: "x".repeat(48),
        GATEHOUSE_DEV_OAUTH_ISSUER_URL: "ftp://localhost",
      }),
    ).toThrow(/GATEHOUSE_DEV_OAUTH_ISSUER_URL/);
  });
});
