/**
 * The SDK constants and client-side checks of SPEC.md §5 and §9 that no other test pins down, each observed where
 * the SDK uses it: on the wire (a scripted server), in the cookies it writes, in the waits it asks its runtime for.
 * Where they need a browser's globals (cookies, navigation, WebAuthn), the platform objects are stood in for.
 */
import { isKnownError } from "@gatehouse/shared";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createRuntime, MAX_SINGLE_WAIT_MS } from "../http/runtime.ts";
import { DEFAULT_SESSION_EXPIRY_MS } from "../objects/server-user.ts";
import {
  ACCESS_COOKIE_MAX_AGE_SECONDS,
  COOKIE_POLL_INTERVAL_MS,
  CookieTokenStore,
  REFRESH_COOKIE_MAX_AGE_SECONDS,
} from "../session/cookie-store.ts";
import { appsFor, errorOf } from "../testing/apps.ts";
import { type RecordedRequest, tinyServer } from "../testing/tiny-server.ts";
import { fakeAccessToken } from "../testing/tokens.ts";
import { CLI_POLL_INTERVAL_MS } from "./cli-login.ts";
import type { AppContext } from "./context.ts";
import { OAUTH_STATE_COOKIE_MAX_AGE_SECONDS, redirectToOAuth } from "./oauth.ts";
import { WAIT_AFTER_REDIRECT_MS } from "./redirect.ts";

const PROJECT = {
  id: "0b6e1f2a-1c1d-4e5f-8a9b-0c1d2e3f4a5b",
  keys: { publishableClientKey: "pck_test", secretServerKey: "ssk_test", superSecretAdminKey: "sak_test" },
};

/** What the scripted server answers per request path (after /api/v1), and what it was sent. */
let answers: Record<string, (request: RecordedRequest) => { status: number; body: unknown }> = {};
let server: Awaited<ReturnType<typeof tinyServer>>;

beforeAll(async () => {
  server = await tinyServer((request, response) => {
    const path = new URL(request.url, "http://x").pathname.replace(/^\/api\/v1/, "");
    const answer = answers[path]?.(request) ?? { status: 404, body: { error: `no answer for ${path}` } };
    response.writeHead(answer.status, { "content-type": "application/json" });
    response.end(JSON.stringify(answer.body));
  });
});
afterAll(() => server.close());
afterEach(() => {
  answers = {};
  server.requests.length = 0;
  vi.unstubAllGlobals();
});

const apps = () => appsFor({ baseUrl: server.url }, PROJECT);
const ctxOf = (app: object) => (app as unknown as { ctx: AppContext }).ctx;
/** An app whose memory store holds a session (the scripted server never checks it). */
function signedIn<App extends object>(app: App): App {
  ctxOf(app).persistentSession().setTokens({ accessToken: fakeAccessToken(), refreshToken: "refresh-token" });
  return app;
}
const bodiesTo = (path: string) =>
  server.requests.filter((r) => r.url.startsWith(`/api/v1${path}`)).map((r) => JSON.parse(r.body));

describe("server-created sessions (SPEC.md §9: default expiry 31536000000 ms)", () => {
  it("ask for a year unless told otherwise", async () => {
    answers["/auth/sessions"] = () => ({ status: 200, body: { access_token: "a", refresh_token: "r" } });
    const app = apps().server();
    await app.createSession({ userId: "me-user" });
    await app.createSession({ userId: "me-user", expiresInMillis: 60_000 });
    expect(DEFAULT_SESSION_EXPIRY_MS).toBe(365 * 24 * 3600 * 1000);
    expect(bodiesTo("/auth/sessions")).toEqual([
      { user_id: "me-user", expires_in_millis: DEFAULT_SESSION_EXPIRY_MS, is_impersonation: false },
      { user_id: "me-user", expires_in_millis: 60_000, is_impersonation: false },
    ]);
  });
});

describe("command-line login (SPEC.md §7: the CLI errors)", () => {
  const pollAnswering = (status: string) => {
    answers["/auth/cli"] = () => ({
      status: 200,
      body: { polling_code: "poll", login_code: "login", expires_at: new Date(0).toISOString() },
    });
    answers["/auth/cli/poll"] = () => ({ status: 200, body: { status } });
  };
  const login = () => {
    const sleeps: number[] = [];
    const app = apps().client({ runtime: { sleep: async (ms) => void sleeps.push(ms) } });
    return {
      sleeps,
      result: app.promptCliLogin({ appUrl: "http://localhost:3000", promptLink: () => {}, maxAttempts: 2 }),
    };
  };

  it.each([
    ["expired", "CLI_AUTH_EXPIRED_ERROR", "CLI authentication request expired. Please try again."],
    ["used", "CLI_AUTH_USED_ERROR", "This authentication token has already been used."],
    ["exploded", "CLI_AUTH_ERROR", "Unexpected CLI login status: exploded"],
  ])("maps the poll status %s to %s", async (status, code, message) => {
    pollAnswering(status);
    const { result } = login();
    const answer = await result;
    expect(answer.status === "error" && [answer.error.code, answer.error.message]).toEqual([code, message]);
    expect(bodiesTo("/auth/cli/poll")).toEqual([{ polling_code: "poll" }]);
  });

  it("waits the poll interval between polls while the user has not confirmed", async () => {
    pollAnswering("waiting");
    const { result, sleeps } = login();
    const answer = await result;
    expect(answer.status === "error" && answer.error.message).toBe(
      "Timed out waiting for CLI authentication.",
    );
    expect(sleeps).toEqual([CLI_POLL_INTERVAL_MS]);
    expect(CLI_POLL_INTERVAL_MS).toBe(2000);
  });
});

/** Stands in for a page's `window` and `document`, writing down every cookie set and every navigation. */
function browserGlobals() {
  const cookieWrites: string[] = [];
  const navigations: string[] = [];
  vi.stubGlobal("window", {
    location: {
      origin: "http://app.example.test",
      protocol: "http:",
      href: "http://app.example.test/",
      assign: (url: string) => void navigations.push(url),
    },
  });
  vi.stubGlobal("document", {
    get cookie() {
      return "";
    },
    set cookie(value: string) {
      cookieWrites.push(value);
    },
  });
  return { cookieWrites, navigations };
}

const maxAgeOf = (writes: string[], name: string) =>
  writes
    .filter((cookie) => cookie.startsWith(`${name}=`))
    .map((cookie) => Number(/; max-age=(\d+)/.exec(cookie)?.[1]));

describe("cookies (SPEC.md §9: refresh 1 year, access 1 day, OAuth state 1 hour, polled every 100 ms)", () => {
  it("keeps the refresh token a year and the access token a day", () => {
    const { cookieWrites } = browserGlobals();
    const timers: number[] = [];
    const store = new CookieTokenStore(
      PROJECT.id,
      createRuntime({ setTimer: (_callback, ms) => timers.push(ms), clearTimer: () => {} }),
    );
    store.write({ accessToken: fakeAccessToken(), refreshToken: "refresh-token" });
    expect(maxAgeOf(cookieWrites, `stack-refresh-${PROJECT.id}`)).toEqual([REFRESH_COOKIE_MAX_AGE_SECONDS]);
    expect(maxAgeOf(cookieWrites, "stack-access")).toEqual([ACCESS_COOKIE_MAX_AGE_SECONDS]);
    expect([REFRESH_COOKIE_MAX_AGE_SECONDS, ACCESS_COOKIE_MAX_AGE_SECONDS]).toEqual([31_536_000, 86_400]);

    // While someone listens, other tabs' changes are looked for every 100 ms.
    const stop = store.subscribe(() => {});
    expect(timers).toEqual([COOKIE_POLL_INTERVAL_MS]);
    expect(COOKIE_POLL_INTERVAL_MS).toBe(100);
    stop();
  });
});

describe("the OAuth redirect (SPEC.md §5: provider_scope only when linking)", () => {
  it("sends provider_scope for type=link only, keeps the verifier an hour, and waits after navigating", async () => {
    const { cookieWrites, navigations } = browserGlobals();
    const sleeps: number[] = [];
    const app = signedIn(
      apps().client({ redirectMethod: "window", runtime: { sleep: async (ms) => void sleeps.push(ms) } }),
    );
    const ctx = ctxOf(app);
    const session = ctx.persistentSession();
    for (const type of ["authenticate", "link"] as const) {
      await redirectToOAuth(ctx, session, "GitHub", { type, providerScope: "repo read:org" });
    }
    const [authenticate, link] = navigations.map((url) => new URL(url));
    expect(authenticate!.pathname).toBe("/api/v1/auth/oauth/authorize/github");
    expect(authenticate!.searchParams.get("type")).toBe("authenticate");
    expect(authenticate!.searchParams.has("provider_scope")).toBe(false);
    expect(link!.searchParams.get("type")).toBe("link");
    expect(link!.searchParams.get("provider_scope")).toBe("repo read:org");

    const verifierCookies = cookieWrites.filter((cookie) => cookie.startsWith("stack-oauth-outer-"));
    expect(verifierCookies).toHaveLength(2);
    for (const cookie of verifierCookies) {
      expect(cookie).toContain(`; max-age=${OAUTH_STATE_COOKIE_MAX_AGE_SECONDS};`);
    }
    expect(OAUTH_STATE_COOKIE_MAX_AGE_SECONDS).toBe(3600);
    expect(sleeps).toEqual([WAIT_AFTER_REDIRECT_MS, WAIT_AFTER_REDIRECT_MS]);
    expect(WAIT_AFTER_REDIRECT_MS).toBe(2000);
  });
});

describe("passkeys (SPEC.md §5: WebAuthn support, user id 1 to 64 bytes)", () => {
  it("refuse to start where the browser has no WebAuthn, before asking the server", async () => {
    vi.stubGlobal("navigator", {});
    const app = signedIn(apps().client());
    for (const attempt of [app.registerPasskey(), app.signInWithPasskey()]) {
      expect(String(await errorOf(attempt))).toContain("This browser does not support passkeys (WebAuthn).");
    }
    expect(server.requests).toEqual([]);
  });

  it("refuse a server user id outside 1 to 64 bytes; 64 bytes goes on to the browser", async () => {
    const created: unknown[] = [];
    vi.stubGlobal("PublicKeyCredential", class {});
    vi.stubGlobal("navigator", {
      credentials: {
        create: async (options: unknown) => {
          created.push(options);
          throw Object.assign(new Error("The user cancelled."), { name: "NotAllowedError" });
        },
      },
    });
    const registering = (userIdBytes: number) => {
      answers["/auth/passkey/initiate-passkey-registration"] = () => ({
        status: 200,
        body: {
          code: "ceremony",
          options_json: {
            rp: { id: "THIS_VALUE_WILL_BE_REPLACED.example.com", name: "App" },
            user: { id: Buffer.alloc(userIdBytes, 7).toString("base64url"), name: "a", displayName: "a" },
            challenge: Buffer.from("challenge").toString("base64url"),
            pubKeyCredParams: [{ type: "public-key", alg: -7 }],
          },
        },
      });
      return signedIn(apps().client()).registerPasskey({ hostname: "app.example.test" });
    };
    for (const bytes of [0, 65]) {
      const result = await registering(bytes);
      expect(result.status === "error" && [result.error.code, result.error.message]).toEqual([
        "PASSKEY_REGISTRATION_FAILED",
        "The user id must be 1 to 64 bytes long.",
      ]);
    }
    expect(created).toEqual([]);
    const result = await registering(64);
    expect(result.status === "error" && isKnownError(result.error, "PASSKEY_WEBAUTHN_ERROR")).toBe(true);
    expect(result.status === "error" && result.error.details).toEqual({
      message: "The user cancelled.",
      code: "NotAllowedError",
    });
    expect(created).toHaveLength(1);
  });
});

describe("the runtime's waits (SPEC.md §9: the longest single wait 2147483647 ms)", () => {
  it("never hands a timer a wait longer than setTimeout takes", () => {
    const asked: number[] = [];
    vi.stubGlobal("setTimeout", (_callback: () => void, ms: number) => {
      asked.push(ms);
      return { unref() {} };
    });
    createRuntime().setTimer(() => {}, MAX_SINGLE_WAIT_MS * 3);
    createRuntime().setTimer(() => {}, 5);
    // Put back at once: the test runner's own timers must not reach the stand-in.
    vi.unstubAllGlobals();
    expect(asked).toEqual([MAX_SINGLE_WAIT_MS, 5]);
    expect(MAX_SINGLE_WAIT_MS).toBe(2 ** 31 - 1);
  });
});
