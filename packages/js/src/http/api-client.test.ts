import { isKnownError, KnownError } from "@gatehouse/shared";
import { afterEach, describe, expect, it } from "vitest";
import { fakeRuntime } from "../testing/fake-runtime.ts";
import { refusedUrl, sendJson, tinyServer } from "../testing/tiny-server.ts";
import { ApiClient, type ApiClientConfig, type TokenSource } from "./api-client.ts";
import { ConnectionError, HttpStatusError, InvalidServerResponseError } from "./errors.ts";

const PROJECT_ID = "6b1e0a6e-3f7a-4b57-9c2c-2c1c8c1b1a11";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function server(handler: Parameters<typeof tinyServer>[0]) {
  const tiny = await tinyServer(handler);
  cleanups.push(tiny.close);
  return tiny;
}

function client(baseUrl: string, overrides: Partial<ApiClientConfig> = {}) {
  const fake = fakeRuntime();
  const api = new ApiClient({
    projectId: PROJECT_ID,
    baseUrl,
    appKind: "client",
    runtime: fake.runtime,
    ...overrides,
  });
  return { api, ...fake };
}

describe("request headers (PROTOCOL.md §1.3)", () => {
  it("sends the protocol headers, a fresh nonce each time, and JSON bodies", async () => {
    const tiny = await server((_req, res) => sendJson(res, 200, { ok: true }));
    const { api } = client(tiny.url, {
      publishableClientKey: "pck_abc",
      extraRequestHeaders: { "x-extra": "1" },
    });
    const session: TokenSource = {
      getTokens: async () => ({ accessToken: "at", refreshToken: "rt" }),
      markAccessTokenExpired: () => {},
    };
    const response = await api.request("/users/me/", { method: "PATCH", body: { a: 1 }, session });
    expect(response).toMatchObject({ status: 200, body: { ok: true } });
    await api.request("/projects/current");

    const [first, second] = tiny.requests;
    expect(first!.url).toBe("/api/v1/users/me");
    expect(first!.method).toBe("PATCH");
    expect(first!.body).toBe('{"a":1}');
    expect(first!.headers).toMatchObject({
      "x-stack-override-error-status": "true",
      "x-stack-project-id": PROJECT_ID,
      "x-stack-access-type": "client",
      "x-stack-client-version": "js @gatehouse/js@0.1.0",
      "x-stack-access-token": "at",
      "x-stack-refresh-token": "rt",
      "x-stack-allow-anonymous-user": "true",
      "x-stack-publishable-client-key": "pck_abc",
      "ngrok-skip-browser-warning": "true",
      "content-type": "application/json",
      "x-extra": "1",
    });
    expect(first!.headers["x-stack-secret-server-key"]).toBeUndefined();
    expect(first!.headers["x-stack-random-nonce"]).toHaveLength(45);
    expect(second!.headers["x-stack-random-nonce"]).not.toBe(first!.headers["x-stack-random-nonce"]);
    expect(second!.headers["content-type"]).toBeUndefined();
    expect(second!.headers["x-stack-access-token"]).toBeUndefined();
  });

  it("server and admin apps always send their key headers, empty when they have none", async () => {
    const tiny = await server((_req, res) => sendJson(res, 200, {}));
    await client(tiny.url, { appKind: "server" }).api.request("/x");
    await client(tiny.url, { appKind: "admin", secretServerKey: "ssk_1" }).api.request("/x");
    expect(tiny.requests[0]!.headers["x-stack-secret-server-key"]).toBe("");
    expect(tiny.requests[0]!.headers["x-stack-super-secret-admin-key"]).toBeUndefined();
    expect(tiny.requests[1]!.headers["x-stack-secret-server-key"]).toBe("ssk_1");
    expect(tiny.requests[1]!.headers["x-stack-super-secret-admin-key"]).toBe("");
  });
});

describe("error answers (PROTOCOL.md §1.6, §2)", () => {
  it("rebuilds the real status of an overridden 4xx and throws plain-text errors as HttpStatusError", async () => {
    const tiny = await server((_req, res) => {
      res.writeHead(200, { "x-stack-actual-status": "403", "content-type": "text/plain" });
      res.end("OTP sign-in is not enabled for this project");
    });
    const error = await client(tiny.url)
      .api.request("/auth/otp/send-sign-in-code", { method: "POST" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.status).toBe(403);
    expect(error.responseText).toBe("OTP sign-in is not enabled for this project");
  });

  it("turns a known error into a typed KnownError with its details", async () => {
    const tiny = await server((_req, res) =>
      sendJson(
        res,
        200,
        {
          code: "USER_EMAIL_ALREADY_EXISTS",
          details: { email: "a@b.c", would_work_if_email_was_verified: false },
          error: "taken",
        },
        { "x-stack-actual-status": "409", "x-stack-known-error": "USER_EMAIL_ALREADY_EXISTS" },
      ),
    );
    const error = await client(tiny.url)
      .api.request("/x", { method: "POST" })
      .catch((e) => e);
    expect(isKnownError(error, "USER_EMAIL_ALREADY_EXISTS")).toBe(true);
    expect(error.status).toBe(409);
    expect(error.details).toEqual({ email: "a@b.c", would_work_if_email_was_verified: false });
    expect(error.message).toBe("taken");
  });

  it("an unknown code becomes UNSUPPORTED_ERROR carrying the original code", async () => {
    const tiny = await server((_req, res) =>
      sendJson(res, 400, { code: "SOMETHING_NEW", error: "new" }, { "x-stack-known-error": "SOMETHING_NEW" }),
    );
    const error = await client(tiny.url)
      .api.request("/x")
      .catch((e) => e);
    expect(error).toBeInstanceOf(KnownError);
    expect(error.code).toBe("UNSUPPORTED_ERROR");
    expect(error.details).toEqual({ originalErrorCode: "SOMETHING_NEW" });
  });

  it("refuses a known-error header that disagrees with the body, or a body that is not JSON", async () => {
    const tiny = await server((req, res) => {
      if (req.url.endsWith("/mismatch")) {
        sendJson(
          res,
          400,
          { code: "USER_NOT_FOUND", error: "x" },
          { "x-stack-known-error": "TEAM_NOT_FOUND" },
        );
      } else {
        res.writeHead(400, { "x-stack-known-error": "USER_NOT_FOUND" });
        res.end("<html>");
      }
    });
    const { api } = client(tiny.url);
    await expect(api.request("/mismatch")).rejects.toBeInstanceOf(InvalidServerResponseError);
    await expect(api.request("/html")).rejects.toBeInstanceOf(InvalidServerResponseError);
  });

  it("throws a 5xx at once, without retrying", async () => {
    const tiny = await server((_req, res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("boom");
    });
    const { api, sleeps } = client(tiny.url);
    const error = await api.request("/x").catch((e) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.status).toBe(500);
    expect(tiny.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});

describe("retries (PROTOCOL.md §10)", () => {
  it("waits Retry-After after a 429, then retries", async () => {
    const tiny = await server((_req, res, index) => {
      if (index === 0) {
        res.writeHead(429, { "retry-after": "3", "content-type": "text/plain" });
        res.end("slow down");
      } else if (index === 1) {
        // The same 429 as the server sends it behind override-error-status.
        res.writeHead(200, { "x-stack-actual-status": "429", "retry-after": "1" });
        res.end("slow down");
      } else sendJson(res, 200, { done: true });
    });
    const { api, sleeps } = client(tiny.url);
    const response = await api.request("/auth/password/sign-in", { method: "POST", body: {} });
    expect(response.body).toEqual({ done: true });
    expect(sleeps).toEqual([3000, 1000]);
    expect(tiny.requests).toHaveLength(3);
  });

  it("backs off exponentially on a 429 without Retry-After and gives up after 5 attempts", async () => {
    const tiny = await server((_req, res) => {
      res.writeHead(429, { "content-type": "text/plain" });
      res.end("slow down");
    });
    const { api, sleeps } = client(tiny.url);
    const error = await api.request("/x").catch((e) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.status).toBe(429);
    expect(tiny.requests).toHaveLength(5);
    // random() is 0.5 in the fake runtime, so the jitter factor is exactly 1.
    expect(sleeps).toEqual([1000, 2000, 4000, 8000]);
  });

  it("retries a 508 loop detection page", async () => {
    const tiny = await server((_req, res, index) => {
      if (index === 0) {
        res.writeHead(508, { "content-type": "text/plain" });
        res.end("INFINITE_LOOP_DETECTED");
      } else sendJson(res, 200, { ok: 1 });
    });
    const { api } = client(tiny.url);
    expect((await api.request("/x", { method: "POST" })).body).toEqual({ ok: 1 });
    expect(tiny.requests).toHaveLength(2);
  });

  it("retries a GET to a server that is down 5 times, then reports what the health check saw", async () => {
    const url = await refusedUrl();
    const fetched: string[] = [];
    const { api, sleeps } = client(url, {});
    const realFetch = api.config.runtime.fetch;
    api.config.runtime.fetch = (input, init) => {
      fetched.push(String(input));
      return realFetch(input, init);
    };
    const error = await api.request("/users/me").catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toContain("unable to connect");
    expect(error.diagnostics).toMatchObject({ online: true, healthUrl: `${url}/health` });
    expect(error.diagnostics.health).not.toBe("ok");
    expect(sleeps).toEqual([1000, 2000, 4000, 8000]);
    expect(fetched).toEqual([...Array(5).fill(`${url}/api/v1/users/me`), `${url}/health`]);
  });

  it("does not retry a POST that could not be sent: it may have reached the server", async () => {
    const url = await refusedUrl();
    const { api, sleeps } = client(url);
    const error = await api.request("/auth/password/sign-in", { method: "POST", body: {} }).catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(sleeps).toEqual([]);
  });

  it("says so when the browser is offline", async () => {
    const url = await refusedUrl();
    const fake = fakeRuntime({ isOnline: () => false });
    const api = new ApiClient({
      projectId: PROJECT_ID,
      baseUrl: url,
      appKind: "client",
      runtime: fake.runtime,
    });
    const error = await api.request("/x", { method: "POST" }).catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/^You are offline/);
    expect(error.diagnostics.online).toBe(false);
  });
});

describe("token errors", () => {
  const expired = (code: string) => (res: Parameters<Parameters<typeof tinyServer>[0]>[1]) =>
    sendJson(res, 401, { code, error: "bad" }, { "x-stack-known-error": code });

  it("marks an access token the server rejects as expired and retries once with a new one", async () => {
    const tiny = await server((req, res) => {
      if (req.headers["x-stack-access-token"] === "old") expired("UNPARSABLE_ACCESS_TOKEN")(res);
      else sendJson(res, 200, { token: req.headers["x-stack-access-token"] });
    });
    let token = "old";
    const marked: string[] = [];
    const session: TokenSource = {
      getTokens: async () => ({ accessToken: token, refreshToken: "rt" }),
      markAccessTokenExpired: (value) => {
        marked.push(value);
        token = "new";
      },
    };
    const response = await client(tiny.url).api.request("/users/me", { session });
    expect(response.body).toEqual({ token: "new" });
    expect(marked).toEqual(["old"]);
  });

  it("retries only once: a token that keeps failing surfaces the error", async () => {
    const tiny = await server((_req, res) => expired("ACCESS_TOKEN_EXPIRED")(res));
    const session: TokenSource = {
      getTokens: async () => ({ accessToken: "a", refreshToken: "rt" }),
      markAccessTokenExpired: () => {},
    };
    const error = await client(tiny.url)
      .api.request("/users/me", { session })
      .catch((e) => e);
    expect(isKnownError(error, "INVALID_ACCESS_TOKEN")).toBe(true);
    expect(tiny.requests).toHaveLength(2);
  });

  it("refreshes the project owner's admin token on INVALID_ADMIN_ACCESS_TOKEN and API_KEY_NOT_FOUND", async () => {
    for (const code of ["ADMIN_ACCESS_TOKEN_EXPIRED", "API_KEY_NOT_FOUND"]) {
      const tiny = await server((req, res) => {
        if (req.headers["x-stack-admin-access-token"] === "stale") expired(code)(res);
        else sendJson(res, 200, { admin: req.headers["x-stack-admin-access-token"] });
      });
      let adminToken = "stale";
      const projectOwner: TokenSource = {
        getTokens: async () => ({ accessToken: adminToken, refreshToken: "r" }),
        markAccessTokenExpired: () => {
          adminToken = "fresh";
        },
      };
      const { api } = client(tiny.url, { appKind: "admin", projectOwner });
      expect((await api.request("/internal/projects/current")).body).toEqual({ admin: "fresh" });
    }
  });
});
