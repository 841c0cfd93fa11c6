/**
 * The callback and the code exchange under attack and failure: provider errors, forged or replayed state, missing
 * cookies, timeouts, replayed or stolen codes, wrong redirect URIs and verifiers. Every bad input is a 4xx.
 */
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { expireRows } from "../../testing/time.ts";
import { oauthAuthorizationCodes, oauthOuterStates } from "./schema.ts";
import {
  deliverCallback,
  exchangeCode,
  redirectError,
  runFlow,
  signInAtDevProvider,
  signInWithDevProvider,
  startFlow,
} from "./test-support.ts";

let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("OAuth callback");
  other = await server.createProject("Another project");
  for (const target of [project, other]) {
    await target.configure({
      "auth.oauth.providers.github": { isShared: true },
      "auth.oauth.providers.gitlab": { isShared: true },
    });
  }
});
afterAll(() => server.close());

/** A flow that reached our callback: the provider's redirect back, not yet delivered. */
async function atCallback(email = uniqueEmail(), options = {}) {
  const flow = await startFlow(server, project, options);
  const callback = await signInAtDevProvider(flow.providerUrl, email);
  return { flow, callback };
}

describe("provider errors", () => {
  it("sends a cancelled sign-in to the error redirect as OAUTH_PROVIDER_ACCESS_DENIED", async () => {
    const { location } = await runFlow(server, project, "cancel");
    expect(`${location.origin}${location.pathname}`).toBe("http://localhost:3000/handler/error");
    expect(redirectError(location)).toEqual({ code: "OAUTH_PROVIDER_ACCESS_DENIED", details: {} });
    expect(location.searchParams.get("message")).toBe("The OAuth provider denied access.");
  });

  it("uses the redirect URI when the app gave no error redirect", async () => {
    const { flow, location } = await runFlow(server, project, "cancel", { errorRedirectUrl: null });
    expect(`${location.origin}${location.pathname}`).toBe(flow.redirectUri);
    expect(location.searchParams.get("code")).toBeNull();
    expect(redirectError(location).code).toBe("OAUTH_PROVIDER_ACCESS_DENIED");
  });

  it("reports a provider that is down, and other provider errors", async () => {
    for (const [error, code] of [
      ["temporarily_unavailable", "OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE"],
      ["invalid_scope", "OAUTH_PROVIDER_ACCESS_DENIED"],
    ]) {
      const flow = await startFlow(server, project);
      const inner = new URL(flow.providerUrl).searchParams.get("state")!;
      const response = await server.request(
        `/api/v1/auth/oauth/callback/github?state=${inner}&error=${error}&error_description=${"x".repeat(5000)}`,
        { headers: { cookie: flow.innerCookie } },
      );
      expect(response.status).toBe(303);
      const reported = redirectError(new URL(response.headers.get("location")!));
      expect(reported.code).toBe(code);
      expect(response.headers.get("location")!.length).toBeLessThan(2000);
    }
  });

  it("refuses a forged provider code, or an answer from another issuer, without signing anyone in", async () => {
    for (const issuer of ["provider", "missing", "http://127.0.0.1:1"]) {
      const flow = await startFlow(server, project);
      const providerUrl = new URL(flow.providerUrl);
      const query = new URLSearchParams({ state: providerUrl.searchParams.get("state")!, code: "forged" });
      if (issuer !== "missing") query.set("iss", issuer === "provider" ? providerUrl.origin : issuer);
      const response = await server.request(`/api/v1/auth/oauth/callback/github?${query}`, {
        headers: { cookie: flow.innerCookie },
      });
      expect(response.status).toBe(303);
      const location = new URL(response.headers.get("location")!);
      expect(redirectError(location).code, location.searchParams.get("message")!).toBe(
        "OAUTH_PROVIDER_ACCESS_DENIED",
      );
    }
  });
});

describe("the inner state and cookie", () => {
  it("refuses a missing, unknown or other provider's state with a plain 400", async () => {
    const { flow, callback } = await atCallback();
    const forged = new URL(callback);
    forged.searchParams.set("state", randomBytes(32).toString("hex"));
    const missing = new URL(callback);
    missing.searchParams.delete("state");
    const wrongProvider = new URL(callback);
    wrongProvider.pathname = wrongProvider.pathname.replace("/github", "/gitlab");
    for (const url of [forged, missing, wrongProvider]) {
      const response = await deliverCallback(server, url, flow.innerCookie);
      expect(response.status).toBe(400);
      expect(response.text).toContain("Invalid OAuth state");
      expect(response.headers.get("x-stack-known-error")).toBeNull();
    }
    // None of that used up the real flow.
    expect((await deliverCallback(server, callback, flow.innerCookie)).status).toBe(303);
  });

  it("needs the cookie of the browser that started the flow, and does not use the flow up without it", async () => {
    const { flow, callback } = await atCallback();
    const stranger = await deliverCallback(server, callback, "stack-oauth-inner-someone-else=true");
    expect(stranger.status).toBe(400);
    expect(stranger.text).toContain("cookie");
    const response = await deliverCallback(server, callback, flow.innerCookie);
    expect(response.status).toBe(303);
    expect(response.headers.get("set-cookie")).toMatch(
      /^stack-oauth-inner-[0-9a-f]{64}=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax$/,
    );
    expect(response.body).toEqual({});
  });

  it("is used once", async () => {
    const { flow, callback } = await atCallback();
    expect((await deliverCallback(server, callback, flow.innerCookie)).status).toBe(303);
    const replay = await deliverCallback(server, callback, flow.innerCookie);
    expect(replay.status).toBe(400);
  });

  it("times out after 10 minutes with OUTER_OAUTH_TIMEOUT", async () => {
    const { flow, callback } = await atCallback();
    const inner = callback.searchParams.get("state")!;
    await expireRows(server, oauthOuterStates, eq(oauthOuterStates.stateHash, sha256Hex(inner)));
    expectKnownError(await deliverCallback(server, callback, flow.innerCookie), 408, "OUTER_OAUTH_TIMEOUT");
  });

  it("needs a code or an error from the provider", async () => {
    const flow = await startFlow(server, project);
    const inner = new URL(flow.providerUrl).searchParams.get("state")!;
    const response = await server.request(`/api/v1/auth/oauth/callback/github?state=${inner}`, {
      headers: { cookie: flow.innerCookie },
    });
    expect(response.status).toBe(400);
  });

  it("accepts the provider's answer as a form POST (response_mode=form_post)", async () => {
    const { flow, callback } = await atCallback();
    const response = await server.request(callback.pathname, {
      method: "POST",
      headers: { cookie: flow.innerCookie, "content-type": "application/x-www-form-urlencoded" },
      body: callback.searchParams.toString(),
    });
    expect(response.status, response.text).toBe(303);
    expect(new URL(response.headers.get("location")!).searchParams.get("state")).toBe(flow.state);
  });
});

describe("the authorization code", () => {
  async function codeFor(options = {}) {
    const { flow, location } = await runFlow(server, project, uniqueEmail("code"), options);
    return { flow, code: location.searchParams.get("code")! };
  }

  it("works once; a replay fails and revokes the session the first use produced", async () => {
    const { flow, code } = await codeFor();
    const first = await exchangeCode(server, project, {
      code,
      verifier: flow.verifier,
      redirectUri: flow.redirectUri,
    });
    expect(first.status, first.text).toBe(200);
    const replay = await exchangeCode(server, project, {
      code,
      verifier: flow.verifier,
      redirectUri: flow.redirectUri,
    });
    expectKnownError(replay, 400, "INVALID_AUTHORIZATION_CODE");
    const refresh = await server.request("/api/v1/auth/oauth/token", {
      method: "POST",
      body: {
        grant_type: "refresh_token",
        refresh_token: first.body.refresh_token,
        client_id: project.id,
        client_secret: project.keys.publishableClientKey,
      },
    });
    expectKnownError(refresh, 401, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
  });

  it("must be exchanged with the same redirect_uri (a plain 400), and stays usable after that mistake", async () => {
    const { flow, code } = await codeFor();
    for (const redirectUri of ["http://localhost:3000/elsewhere", ""]) {
      const wrong = await exchangeCode(server, project, { code, verifier: flow.verifier, redirectUri });
      expect(wrong.status).toBe(400);
      expect(wrong.headers.get("x-stack-known-error")).toBeNull();
    }
    const right = await exchangeCode(server, project, {
      code,
      verifier: flow.verifier,
      redirectUri: flow.redirectUri,
    });
    expect(right.status, right.text).toBe(200);
  });

  it("needs the PKCE verifier of the challenge (S256 and plain)", async () => {
    for (const method of ["S256", "plain"] as const) {
      const { flow, code } = await codeFor({ codeChallengeMethod: method });
      for (const verifier of ["", "short", randomBytes(32).toString("base64url")]) {
        const response = await exchangeCode(server, project, {
          code,
          verifier,
          redirectUri: flow.redirectUri,
        });
        expectKnownError(response, 400, "INVALID_AUTHORIZATION_CODE");
      }
    }
  });

  it("expires after 5 minutes", async () => {
    const { flow, code } = await codeFor();
    await expireRows(server, oauthAuthorizationCodes, eq(oauthAuthorizationCodes.codeHash, sha256Hex(code)));
    const response = await exchangeCode(server, project, {
      code,
      verifier: flow.verifier,
      redirectUri: flow.redirectUri,
    });
    expectKnownError(response, 400, "INVALID_AUTHORIZATION_CODE");
  });

  it("belongs to its project, and unknown or malformed codes are refused", async () => {
    const { flow, code } = await codeFor();
    const stolen = await exchangeCode(server, other, {
      code,
      verifier: flow.verifier,
      redirectUri: flow.redirectUri,
    });
    expectKnownError(stolen, 400, "INVALID_AUTHORIZATION_CODE");
    for (const bad of [randomBytes(32).toString("hex"), "nope", "A".repeat(64), ""]) {
      const response = await exchangeCode(server, project, {
        code: bad,
        verifier: flow.verifier,
        redirectUri: flow.redirectUri,
      });
      expectKnownError(response, 400, "INVALID_AUTHORIZATION_CODE");
    }
    // The real code is still good after all that.
    const response = await exchangeCode(server, project, {
      code,
      verifier: flow.verifier,
      redirectUri: flow.redirectUri,
    });
    expect(response.status, response.text).toBe(200);
  });

  it("can be exchanged with a JSON body, and with HTTP Basic client authentication", async () => {
    const json = await codeFor();
    const response = await server.request("/api/v1/auth/oauth/token", {
      method: "POST",
      body: {
        grant_type: "authorization_code",
        code: json.code,
        redirect_uri: json.flow.redirectUri,
        code_verifier: json.flow.verifier,
        client_id: project.id,
        client_secret: project.keys.publishableClientKey,
      },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("pragma")).toBe("no-cache");

    const basic = await codeFor();
    const credentials = Buffer.from(`${project.id}:${project.keys.publishableClientKey}`).toString("base64");
    const viaBasic = await server.request("/api/v1/auth/oauth/token", {
      method: "POST",
      headers: { authorization: `Basic ${credentials}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: basic.code,
        redirect_uri: basic.flow.redirectUri,
        code_verifier: basic.flow.verifier,
      }).toString(),
    });
    expect(viaBasic.status, viaBasic.text).toBe(200);
  });

  it("is refused for a wrong client secret", async () => {
    const { flow, code } = await codeFor();
    const response = await server.request("/api/v1/auth/oauth/token", {
      method: "POST",
      body: {
        grant_type: "authorization_code",
        code,
        redirect_uri: flow.redirectUri,
        code_verifier: flow.verifier,
        client_id: project.id,
        client_secret: other.keys.publishableClientKey,
      },
    });
    expectKnownError(response, 400, "INVALID_OAUTH_CLIENT_ID_OR_SECRET");
  });
});

describe("sign-up settings", () => {
  it("refuses new users when sign-up is off, but lets existing ones in", async () => {
    const closed = await server.createProject("Closed sign-up");
    await closed.configure({ "auth.oauth.providers.github": { isShared: true } });
    const existing = uniqueEmail("existing");
    await signInWithDevProvider(server, closed, existing);
    await closed.configure({ "auth.allowSignUp": false });
    const { location } = await runFlow(server, closed, uniqueEmail("newcomer"));
    expect(redirectError(location)).toEqual({ code: "SIGN_UP_NOT_ENABLED", details: {} });
    const { tokens } = await signInWithDevProvider(server, closed, existing);
    expect(tokens.is_new_user).toBe(false);
  });
});
