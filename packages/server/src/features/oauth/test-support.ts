/**
 * Drives the whole OAuth code flow the way a browser and an app do: authorize at Gatehouse, the development
 * provider's sign-in page over real HTTP (following redirects by hand, with a cookie jar), the callback, and the
 * code exchange with PKCE. Nothing is mocked.
 */
import { createHash, randomBytes } from "node:crypto";
import type { WireOAuthTokenResponse } from "@gatehouse/shared";
import { expect } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import type { OAuthOuterStateRow } from "./schema.ts";
import { signInWithProviderAccount } from "./sign-in-user.ts";

export const APP_REDIRECT_URI = "http://localhost:3000/handler/oauth-callback";

/** A browser's cookies for one host, ignoring paths (the dev provider does not mind extra cookies). */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(response: Response) {
    for (const header of response.headers.getSetCookie()) {
      const pair = header.split(";")[0]!;
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/max-age=0/i.test(header) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

export type FlowOptions = {
  providerId?: string;
  codeChallengeMethod?: "S256" | "plain";
  redirectUri?: string;
  type?: "authenticate" | "link";
  token?: string;
  providerScope?: string;
  /** null leaves the parameter out, so errors go to the redirect URI. */
  errorRedirectUrl?: string | null;
  afterCallbackRedirectUrl?: string;
  clientSecret?: string;
  json?: boolean;
};

export type StartedFlow = {
  state: string;
  verifier: string;
  redirectUri: string;
  /** Where Gatehouse sends the browser (the provider's authorization URL). */
  providerUrl: string;
  /** The inner-state cookie Gatehouse set, as a `cookie` header value. */
  innerCookie: string;
};

/** The OAuth client the flow runs for: a project and its publishable key. */
type OAuthClientProject = Pick<TestProject, "id"> & { keys: { publishableClientKey: string } };

export function authorizeQuery(project: OAuthClientProject, options: FlowOptions = {}) {
  const verifier = randomBytes(32).toString("base64url");
  const method = options.codeChallengeMethod ?? "S256";
  const challenge = method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
  const state = randomBytes(16).toString("hex");
  const query = new URLSearchParams({
    client_id: project.id,
    client_secret: options.clientSecret ?? project.keys.publishableClientKey,
    redirect_uri: options.redirectUri ?? APP_REDIRECT_URI,
    scope: "legacy",
    state,
    grant_type: "authorization_code",
    code_challenge: challenge,
    code_challenge_method: method,
    response_type: "code",
    type: options.type ?? "authenticate",
  });
  if (options.errorRedirectUrl !== null) {
    query.set("error_redirect_url", options.errorRedirectUrl ?? "http://localhost:3000/handler/error");
  }
  if (options.token) query.set("token", options.token);
  if (options.providerScope) query.set("provider_scope", options.providerScope);
  if (options.afterCallbackRedirectUrl)
    query.set("after_callback_redirect_url", options.afterCallbackRedirectUrl);
  if (options.json) query.set("stack_response_mode", "json");
  return { query, verifier, state, redirectUri: query.get("redirect_uri")! };
}

export async function startFlow(
  server: TestServer,
  project: TestProject,
  options: FlowOptions = {},
): Promise<StartedFlow> {
  const { query, verifier, state, redirectUri } = authorizeQuery(project, options);
  const response = await server.request(
    `/api/v1/auth/oauth/authorize/${options.providerId ?? "github"}?${query}`,
  );
  if (options.json) {
    expect(response.status, response.text).toBe(200);
    return { state, verifier, redirectUri, providerUrl: response.body.location, innerCookie: "" };
  }
  expect(response.status, response.text).toBe(307);
  const cookie = response.headers.get("set-cookie") ?? "";
  expect(cookie).toMatch(
    /^stack-oauth-inner-[0-9a-f]{64}=true; Path=\/; Expires=[^;]+; Max-Age=600; HttpOnly; SameSite=Lax$/,
  );
  return {
    state,
    verifier,
    redirectUri,
    providerUrl: response.headers.get("location")!,
    innerCookie: cookie.split(";")[0]!,
  };
}

/**
 * At the dev provider, as a browser keeping its cookies: open the authorization URL, then post `form` on the
 * sign-in page. Returns the provider's answer to the post, and the browser's fetch for following it.
 */
export async function postAtDevProvider(providerUrl: string, form: string) {
  const jar = new CookieJar();
  const go = async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("cookie", jar.header());
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    jar.store(response);
    return response;
  };
  let response = await go(providerUrl);
  expect(response.status).toBe(303);
  const interaction = new URL(response.headers.get("location")!, providerUrl).toString();
  response = await go(interaction);
  expect(response.status).toBe(200);
  expect(await response.text()).toContain('name="email"');
  response = await go(interaction, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
  });
  return { response, go };
}

/**
 * At the dev provider: open the authorization URL, type `email` on the sign-in page (or press Cancel), and follow
 * redirects until the provider sends the browser back to Gatehouse. Returns that callback URL.
 */
export async function signInAtDevProvider(providerUrl: string, email: string | "cancel"): Promise<URL> {
  const form = email === "cancel" ? "action=cancel" : `action=sign-in&email=${encodeURIComponent(email)}`;
  const { response: posted, go } = await postAtDevProvider(providerUrl, form);
  expect(posted.status).toBe(303);
  const back = await go(new URL(posted.headers.get("location")!, providerUrl).toString());
  expect(back.status).toBe(303);
  return new URL(back.headers.get("location")!);
}

/** The dev provider's sign-in page as a browser gets it from the provider's authorization URL. */
export async function devProviderLoginPage(providerUrl: string): Promise<string> {
  const jar = new CookieJar();
  const first = await fetch(providerUrl, { redirect: "manual" });
  jar.store(first);
  expect(first.status).toBe(303);
  const page = await fetch(new URL(first.headers.get("location")!, providerUrl), {
    headers: { cookie: jar.header() },
  });
  expect(page.status).toBe(200);
  return page.text();
}

/** The browser arriving at Gatehouse's callback (with the inner cookie unless told otherwise). */
export function deliverCallback(server: TestServer, callback: URL, cookie: string | null) {
  return server.request(`${callback.pathname}${callback.search}`, { headers: cookie ? { cookie } : {} });
}

export function exchangeCode(
  server: TestServer,
  project: TestProject,
  input: { code: string; verifier: string; redirectUri: string },
) {
  return server.request("/api/v1/auth/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: input.code,
      redirect_uri: input.redirectUri,
      code_verifier: input.verifier,
      client_id: project.id,
      client_secret: project.keys.publishableClientKey,
    }).toString(),
  });
}

/**
 * The whole flow against a server listening at `baseUrl`, over real HTTP as a browser and an app would make it,
 * for SDK tests: authorize, the dev provider's form, the callback (the provider's redirect is followed to the same
 * path on `baseUrl`, whatever public URL the server was told), and the code exchange. Expects success.
 */
export async function signInOverHttp(
  baseUrl: string,
  project: OAuthClientProject,
  email: string,
  options: Pick<FlowOptions, "providerId" | "providerScope"> = {},
) {
  const { query, verifier, state, redirectUri } = authorizeQuery(project, options);
  const authorize = await fetch(
    `${baseUrl}/api/v1/auth/oauth/authorize/${options.providerId ?? "github"}?${query}`,
    { redirect: "manual" },
  );
  expect(authorize.status, await authorize.clone().text()).toBe(307);
  const providerUrl = authorize.headers.get("location")!;
  const innerCookie = (authorize.headers.get("set-cookie") ?? "").split(";")[0]!;

  const callback = await signInAtDevProvider(providerUrl, email);
  const delivered = await fetch(`${baseUrl}${callback.pathname}${callback.search}`, {
    headers: { cookie: innerCookie },
    redirect: "manual",
  });
  expect(delivered.status, await delivered.clone().text()).toBe(303);
  const appRedirect = new URL(delivered.headers.get("location")!);
  expect(appRedirect.searchParams.get("state"), appRedirect.toString()).toBe(state);

  const exchanged = await fetch(`${baseUrl}/api/v1/auth/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: appRedirect.searchParams.get("code") ?? "",
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: project.id,
      client_secret: project.keys.publishableClientKey,
    }),
  });
  const tokens = (await exchanged.json()) as CodeGrantResponse;
  expect(exchanged.status, JSON.stringify(tokens)).toBe(200);
  /** The provider's issuer, to ask its userinfo endpoint about the provider tokens Gatehouse hands out. */
  const providerIssuer = new URL(providerUrl).origin;
  return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token, providerIssuer };
}

/** The app's side after the callback: the redirect to its redirect_uri, with our code and its own state. */
export function appRedirect(response: { status: number; headers: Headers; text: string }, flow: StartedFlow) {
  expect(response.status, response.text).toBe(303);
  const location = new URL(response.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(flow.redirectUri);
  return location;
}

/** The whole flow up to the app's redirect. */
export async function runFlow(
  server: TestServer,
  project: TestProject,
  email: string | "cancel",
  options: FlowOptions = {},
) {
  const flow = await startFlow(server, project, options);
  const callback = await signInAtDevProvider(flow.providerUrl, email);
  const response = await deliverCallback(server, callback, flow.innerCookie || null);
  expect(response.status, response.text).toBe(303);
  return { flow, callback, location: new URL(response.headers.get("location")!) };
}

export type CodeGrantResponse = WireOAuthTokenResponse;

/** The whole flow through the token exchange; expects success. */
export async function signInWithDevProvider(
  server: TestServer,
  project: TestProject,
  email: string,
  options: FlowOptions = {},
) {
  const { flow, location } = await runFlow(server, project, email, options);
  expect(location.searchParams.get("errorCode"), location.toString()).toBeNull();
  expect(location.searchParams.get("state")).toBe(flow.state);
  const code = location.searchParams.get("code")!;
  expect(code).toMatch(/^[0-9a-f]{64}$/);
  const tokens = await exchangeCode(server, project, {
    code,
    verifier: flow.verifier,
    redirectUri: flow.redirectUri,
  });
  expect(tokens.status, tokens.text).toBe(200);
  return { flow, code, tokens: tokens.body as CodeGrantResponse };
}

/** The known error an error redirect carries (PROTOCOL.md §4.7). */
export function redirectError(location: URL) {
  expect(location.searchParams.get("error")).toBe("server_error");
  expect(location.searchParams.get("message")).toBe(location.searchParams.get("error_description"));
  return {
    code: location.searchParams.get("errorCode"),
    details: JSON.parse(location.searchParams.get("details") ?? "null") as unknown,
  };
}

/**
 * A callback's sign-in decision for a provider that is not the development one, straight through
 * `signInWithProviderAccount`. Every such provider has real, remote endpoints, so no test can reach one over HTTP;
 * the development provider cannot stand in, as its addresses are never trusted.
 */
export async function signInWithTrustedProvider(
  server: TestServer,
  project: Pick<TestProject, "id">,
  input: {
    email: string;
    emailVerified?: boolean;
    accountId?: string;
    providerConfigId?: string;
    type?: "authenticate" | "link";
    userId?: string;
  },
) {
  const providerConfigId = input.providerConfigId ?? "github";
  const flow: OAuthOuterStateRow = {
    stateHash: randomBytes(32).toString("hex"),
    projectId: project.id,
    providerId: providerConfigId,
    providerConfigId,
    callbackUrl: `http://localhost:8102/api/v1/auth/oauth/callback/${providerConfigId}`,
    codeVerifierEncrypted: "unused",
    providerScopes: [],
    type: input.type ?? "authenticate",
    userId: input.userId ?? null,
    redirectUri: APP_REDIRECT_URI,
    clientState: "unused",
    codeChallenge: "unused",
    codeChallengeMethod: "S256",
    errorRedirectUrl: null,
    afterCallbackRedirectUrl: null,
    responseMode: "redirect",
    createdAt: new Date(),
    expiresAt: new Date(Date.now() + 600_000),
  };
  const accountId = input.accountId ?? `id-${randomBytes(6).toString("hex")}`;
  const result = await signInWithProviderAccount(server.deps, {
    projectId: project.id,
    config: await getRenderedConfig(server.deps, project.id),
    flow,
    profile: {
      accountId,
      email: input.email,
      emailVerified: input.emailVerified ?? true,
      displayName: null,
      profileImageUrl: null,
    },
    tokens: { accessToken: "provider-access-token", refreshToken: null, scopes: [], expiresAt: null },
    fromDevelopmentProvider: false,
  });
  return { ...result, accountId };
}
