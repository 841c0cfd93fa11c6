import { GatehouseClientApp, gatehouseInternals, KnownError } from "@gatehouse/js";
import { fakeAccessToken } from "../../../js/src/testing/tokens.ts";

/**
 * A scripted Gatehouse API for component tests: a real GatehouseClientApp whose `fetch` answers from a table of
 * routes, so components go through the SDK exactly as in an app. Unscripted routes fail the test loudly.
 */
export type Reply = { status?: number; body?: unknown } | KnownError;
export type Handler = (body: any, url: URL) => Reply | Promise<Reply>;

export const PROJECT_ID = "6c1c9d6e-0000-4000-8000-000000000001";
export const USER_ID = "6c1c9d6e-0000-4000-8000-0000000000aa";

export function projectJson(config: Record<string, unknown> = {}) {
  return {
    id: PROJECT_ID,
    display_name: "Acme Notes",
    config: {
      sign_up_enabled: true,
      credential_enabled: true,
      magic_link_enabled: false,
      passkey_enabled: false,
      client_team_creation_enabled: false,
      client_user_deletion_enabled: false,
      allow_user_api_keys: false,
      allow_team_api_keys: false,
      enabled_oauth_providers: [],
      domains: [],
      ...config,
    },
  };
}

export function userJson(overrides: Record<string, unknown> = {}) {
  return {
    id: USER_ID,
    primary_email: "sam@example.com",
    primary_email_verified: true,
    display_name: "Sam Rivera",
    client_metadata: null,
    client_read_only_metadata: null,
    profile_image_url: null,
    signed_up_at_millis: Date.now(),
    has_password: true,
    auth_with_email: true,
    oauth_providers: [],
    selected_team_id: null,
    selected_team: null,
    requires_totp_mfa: false,
    otp_auth_enabled: false,
    passkey_auth_enabled: false,
    is_anonymous: false,
    is_restricted: false,
    restricted_reason: null,
    restricted_by_admin: false,
    restricted_by_admin_reason: null,
    ...overrides,
  };
}

function respond(reply: Reply): Response {
  if (reply instanceof KnownError) {
    return new Response(JSON.stringify(reply.toJSON()), {
      status: reply.status,
      headers: { "content-type": "application/json", "x-stack-known-error": reply.code },
    });
  }
  if (typeof reply.body === "string") {
    return new Response(reply.body, {
      status: reply.status ?? 200,
      headers: { "content-type": "text/plain" },
    });
  }
  return new Response(JSON.stringify(reply.body ?? {}), {
    status: reply.status ?? 200,
    headers: { "content-type": "application/json" },
  });
}

export function fakeApi(
  routes: Record<string, Handler> = {},
  options: { project?: Record<string, unknown>; signedIn?: boolean; user?: Record<string, unknown> } = {},
) {
  const calls: { route: string; body: any }[] = [];
  const navigated: string[] = [];
  const table: Record<string, Handler> = {
    "GET /projects/current": () => ({ body: projectJson(options.project) }),
    "GET /users/me": () => ({ body: userJson(options.user) }),
    // The SDK refreshes the access token after the user changes; hand out a fresh one.
    "POST /auth/oauth/token": () => ({
      body: {
        access_token: fakeAccessToken({ project_id: PROJECT_ID, sub: USER_ID }),
        token_type: "Bearer",
        expires_in: 600,
        scope: "legacy",
      },
    }),
    ...routes,
  };
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const route = `${init?.method ?? "GET"} ${url.pathname.replace(/^\/api\/v1/, "")}`;
    const raw = typeof init?.body === "string" ? init.body : null;
    let body: any = null;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = Object.fromEntries(new URLSearchParams(raw));
      }
    }
    calls.push({ route, body });
    const handler = table[route];
    if (!handler) return respond({ status: 500, body: `unscripted route ${route}` });
    return respond(await handler(body, url));
  };
  const app = new GatehouseClientApp({
    projectId: PROJECT_ID,
    baseUrl: "http://api.test",
    publishableClientKey: "pck_test",
    tokenStore: "memory",
    redirectMethod: { navigate: (to) => navigated.push(to) },
    noAutomaticPrefetch: true,
    runtime: { fetch: fetch as typeof globalThis.fetch, sleep: async () => {} },
  });
  if (options.signedIn) {
    void app[gatehouseInternals].signInWithTokens({
      accessToken: fakeAccessToken({ project_id: PROJECT_ID, sub: USER_ID }),
      refreshToken: "refresh-token",
    });
  }
  /** The routes called, in order (for asserting what did or did not reach the server). */
  const routesCalled = () => calls.map((call) => call.route);
  return { app, calls, navigated, routesCalled };
}

/** A known error as the server sends it. */
export function known(code: string, details?: Record<string, unknown>): KnownError {
  return new KnownError(code, details);
}

/** What a sign-in endpoint answers: a usable access token for the test user, and a refresh token. */
export function signInReply(isNewUser = false): Reply {
  return {
    body: {
      access_token: fakeAccessToken({ project_id: PROJECT_ID, sub: USER_ID }),
      refresh_token: "refresh-token",
      user_id: USER_ID,
      is_new_user: isNewUser,
    },
  };
}
