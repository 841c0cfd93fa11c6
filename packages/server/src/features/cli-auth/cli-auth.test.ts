import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectPlainError } from "../../testing/known-errors.ts";
import { expireRows, setClock } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { sessions } from "../sessions/schema.ts";
import { users } from "../users/schema.ts";
import { cliAuthAttempts } from "./schema.ts";
import { CLI_POLL_RATE_LIMIT, INVALID_LOGIN_CODE_MESSAGE } from "./service.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  // Trusting the proxy lets the rate-limit test name its own client IP.
  server = await createTestServer({ trustProxy: { hops: 1 } });
  project = await server.createProject("CLI");
});
afterAll(() => server.close());

const post = (path: string, body: unknown, headers: Record<string, string> = project.headers("client")) =>
  server.request(`/api/v1/auth/cli${path}`, { method: "POST", headers, body });

async function start(body: unknown = {}, target: TestProject = project) {
  const response = await post("", body, target.headers("client"));
  expect(response.status).toBe(200);
  return response.body as { polling_code: string; login_code: string; expires_at: string };
}

const poll = (pollingCode: string, headers?: Record<string, string>) =>
  post("/poll", { polling_code: pollingCode }, headers);
const complete = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  post("/complete", body, headers);

async function attemptRow(pollingCode: string) {
  const [row] = await server.deps.db
    .select()
    .from(cliAuthAttempts)
    .where(eq(cliAuthAttempts.pollingCodeHash, sha256Hex(pollingCode)));
  return row!;
}

function expectInvalidLoginCode(response: { status: number; text: string }) {
  expect(response.status).toBe(400);
  expect(response.text).toBe(INVALID_LOGIN_CODE_MESSAGE);
}

describe("POST /auth/cli", () => {
  it("gives two distinct 45-character codes, valid for 2 hours by default, stored only as hashes", async () => {
    const before = Date.now();
    const created = await start();
    expect(created.polling_code).toMatch(/^[0-9a-z]{45}$/);
    expect(created.login_code).toMatch(/^[0-9a-z]{45}$/);
    expect(created.polling_code).not.toBe(created.login_code);
    const expiresAt = Date.parse(created.expires_at);
    expect(new Date(expiresAt).toISOString()).toBe(created.expires_at);
    expect(expiresAt - before).toBeGreaterThanOrEqual(2 * 3600 * 1000 - 1000);
    expect(expiresAt - before).toBeLessThanOrEqual(2 * 3600 * 1000 + 5000);

    const row = await attemptRow(created.polling_code);
    expect(row.projectId).toBe(project.id);
    expect(row.loginCodeHash).toBe(sha256Hex(created.login_code));
    expect(JSON.stringify(row)).not.toContain(created.polling_code);
    expect(JSON.stringify(row)).not.toContain(created.login_code);
  });

  it("accepts no body at all, and a custom lifetime up to 24 hours", async () => {
    const bare = await post("", undefined);
    expect(bare.status).toBe(200);
    const before = Date.now();
    const created = await start({ expires_in_millis: 24 * 3600 * 1000 });
    expect(Date.parse(created.expires_at) - before).toBeGreaterThan(24 * 3600 * 1000 - 5000);
  });

  it.each([
    [{ expires_in_millis: 24 * 3600 * 1000 + 1 }],
    [{ expires_in_millis: 0 }],
    [{ expires_in_millis: "3600000" }],
    [{ unexpected: true }],
    [{ anon_refresh_token: 42 }],
  ])("refuses the body %j", async (body) => {
    const response = await post("", body);
    expect(response.status).toBe(400);
    expect(response.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
  });

  it("refuses an anon_refresh_token that is not a live anonymous session of this project", async () => {
    const regular = await createSignedInUser(server, project.id);
    const other = await server.createProject("Other CLI project");
    const foreign = await createSignedInUser(server, other.id, { isAnonymous: true });
    const expired = await createSignedInUser(server, project.id, { isAnonymous: true });
    await expireRows(server, sessions, eq(sessions.refreshTokenHash, sha256Hex(expired.refreshToken)));
    // The texts of PROTOCOL-EXTRA §8.9.
    for (const [token, text] of [
      ["not-a-token", "Invalid anon refresh token"],
      [regular.refreshToken, "The provided refresh token does not belong to an anonymous user"],
      [foreign.refreshToken, "Anon refresh token does not belong to this project"],
      [expired.refreshToken, "The provided anon refresh token has expired"],
    ] as const) {
      expectPlainError(await post("", { anon_refresh_token: token }), 400, text);
    }
  });
});

describe("the CLI login flow", () => {
  it("waits, hands the browser's refresh token to the poller once with 201, then says used", async () => {
    const { user, refreshToken, accessToken } = await createSignedInUser(server, project.id);
    const created = await start();

    const waiting = await poll(created.polling_code);
    expect(waiting.status).toBe(200);
    expect(waiting.body).toEqual({ status: "waiting" });

    const completed = await complete(
      { login_code: created.login_code, refresh_token: refreshToken },
      project.headers("client", { "x-stack-access-token": accessToken }),
    );
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({ success: true });
    const stored = await attemptRow(created.polling_code);
    expect(stored.refreshTokenEncrypted).toMatch(/^v1\./);
    expect(stored.refreshTokenEncrypted).not.toContain(refreshToken);

    const success = await poll(created.polling_code);
    expect(success.status).toBe(201);
    expect(success.body).toEqual({ status: "success", refresh_token: refreshToken });
    const collected = await attemptRow(created.polling_code);
    expect(collected.usedAt).not.toBeNull();
    expect(collected.refreshTokenEncrypted).toBeNull();

    const used = await poll(created.polling_code);
    expect(used.status).toBe(200);
    expect(used.body).toEqual({ status: "used" });

    // The CLI's token is a working session of the user.
    const refreshed = await server.request("/api/v1/auth/sessions/current/refresh", {
      method: "POST",
      headers: project.headers("client", { "x-stack-refresh-token": success.body.refresh_token }),
    });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body.access_token).sub).toBe(user.id);
  });

  it("works without an access token, with complete as the default mode", async () => {
    const { refreshToken } = await createSignedInUser(server, project.id);
    const created = await start();
    expect(
      (await complete({ login_code: created.login_code, mode: "complete", refresh_token: refreshToken }))
        .status,
    ).toBe(200);
    expect((await poll(created.polling_code)).status).toBe(201);
  });

  it("reports an expired attempt to the poller and refuses its login code", async () => {
    const { refreshToken } = await createSignedInUser(server, project.id);
    const created = await start();
    await expireRows(
      server,
      cliAuthAttempts,
      eq(cliAuthAttempts.pollingCodeHash, sha256Hex(created.polling_code)),
    );
    const expired = await poll(created.polling_code);
    expect(expired.status).toBe(200);
    expect(expired.body).toEqual({ status: "expired" });
    expectInvalidLoginCode(await complete({ login_code: created.login_code, refresh_token: refreshToken }));
    expectInvalidLoginCode(await complete({ login_code: created.login_code, mode: "check" }));
  });

  it("does not hand over a token completed before the attempt expired but collected after", async () => {
    const { refreshToken } = await createSignedInUser(server, project.id);
    const created = await start();
    await complete({ login_code: created.login_code, refresh_token: refreshToken });
    await expireRows(
      server,
      cliAuthAttempts,
      eq(cliAuthAttempts.pollingCodeHash, sha256Hex(created.polling_code)),
    );
    expect((await poll(created.polling_code)).body).toEqual({ status: "expired" });
  });
});

describe("POST /auth/cli/poll", () => {
  it("refuses unknown polling codes with INVALID_POLLING_CODE", async () => {
    const created = await start();
    for (const code of ["x".repeat(45), "short", created.login_code]) {
      const response = await poll(code);
      expect(response.status).toBe(400);
      expect(response.headers.get("x-stack-known-error")).toBe("INVALID_POLLING_CODE");
    }
  });

  it("refuses a polling code of another project", async () => {
    const other = await server.createProject("Poll elsewhere");
    const created = await start({}, other);
    const response = await poll(created.polling_code);
    expect(response.headers.get("x-stack-known-error")).toBe("INVALID_POLLING_CODE");
    expect((await poll(created.polling_code, other.headers("client"))).body).toEqual({ status: "waiting" });
  });

  it("needs a polling code", async () => {
    for (const body of [{}, { polling_code: 5 }, { polling_code: "" }]) {
      const response = await post("/poll", body);
      expect(response.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
    }
  });

  it("limits polls per client IP", async () => {
    const created = await start();
    // The clock stands still (Date only), so a slow machine cannot see the minute-long window end mid-loop, and
    // the 429 comes at the instant the window began: Retry-After is the whole window.
    const restoreClock = setClock(Date.now());
    try {
      const headers = project.headers("client", { "x-forwarded-for": "203.0.113.9" });
      for (let i = 0; i < CLI_POLL_RATE_LIMIT.limit; i++) {
        expect((await poll(created.polling_code, headers)).status).toBe(200);
      }
      const limited = await poll(created.polling_code, headers);
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe(String(CLI_POLL_RATE_LIMIT.windowSeconds));
      const elsewhere = await poll(created.polling_code, { ...headers, "x-forwarded-for": "203.0.113.10" });
      expect(elsewhere.status).toBe(200);
    } finally {
      restoreClock();
    }
  });
});

describe("POST /auth/cli/complete", () => {
  it("refuses bad, used and foreign login codes with the plain 400", async () => {
    const { refreshToken } = await createSignedInUser(server, project.id);
    expectInvalidLoginCode(await complete({ login_code: "x".repeat(45), refresh_token: refreshToken }));
    expectInvalidLoginCode(await complete({ login_code: "nope", refresh_token: refreshToken }));

    const created = await start();
    expectInvalidLoginCode(await complete({ login_code: created.polling_code, refresh_token: refreshToken }));
    expect((await complete({ login_code: created.login_code, refresh_token: refreshToken })).status).toBe(
      200,
    );
    // Completed (not yet collected) and collected attempts both refuse the code again.
    expectInvalidLoginCode(await complete({ login_code: created.login_code, refresh_token: refreshToken }));
    await poll(created.polling_code);
    expectInvalidLoginCode(await complete({ login_code: created.login_code, refresh_token: refreshToken }));
    expectInvalidLoginCode(await complete({ login_code: created.login_code, mode: "check" }));

    const other = await server.createProject("Complete elsewhere");
    const otherUser = await createSignedInUser(server, other.id);
    const foreign = await start({}, other);
    expectInvalidLoginCode(await complete({ login_code: foreign.login_code, refresh_token: refreshToken }));
    expectInvalidLoginCode(
      await complete(
        { login_code: foreign.login_code, refresh_token: otherUser.refreshToken },
        project.headers("client"),
      ),
    );
    expect((await poll(foreign.polling_code, other.headers("client"))).body).toEqual({ status: "waiting" });
  });

  it("needs a live refresh token of this project, of a user who is not restricted", async () => {
    const created = await start();
    const missing = await complete({ login_code: created.login_code });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain("refresh_token");

    const unknown = await complete({ login_code: created.login_code, refresh_token: "not-a-session" });
    expectPlainError(unknown, 400, "Invalid refresh token");

    const other = await server.createProject("Foreign sessions");
    const foreign = await createSignedInUser(server, other.id);
    const foreignResponse = await complete({
      login_code: created.login_code,
      refresh_token: foreign.refreshToken,
    });
    expectPlainError(foreignResponse, 400, "Refresh token does not belong to this project");

    const expiredUser = await createSignedInUser(server, project.id);
    await expireRows(server, sessions, eq(sessions.refreshTokenHash, sha256Hex(expiredUser.refreshToken)));
    expectPlainError(
      await complete({ login_code: created.login_code, refresh_token: expiredUser.refreshToken }),
      400,
      "Invalid refresh token",
    );

    const anonymous = await createSignedInUser(server, project.id, { isAnonymous: true });
    const restricted = await complete({
      login_code: created.login_code,
      refresh_token: anonymous.refreshToken,
    });
    expect(restricted.status).toBe(403);
    expect(restricted.headers.get("x-stack-known-error")).toBe("RESTRICTED_USER_NOT_ALLOWED");

    // None of the refusals used the code up.
    expect((await poll(created.polling_code)).body).toEqual({ status: "waiting" });
    // The token is the proof: who calls is not asked about (PROTOCOL-EXTRA §8.9), and the token is stored as given.
    const alice = await createSignedInUser(server, project.id);
    const bob = await createSignedInUser(server, project.id);
    const ok = await complete(
      { login_code: created.login_code, refresh_token: bob.refreshToken },
      project.headers("client", { "x-stack-access-token": alice.accessToken }),
    );
    expect(ok.status).toBe(200);
    expect((await poll(created.polling_code)).body).toEqual({
      status: "success",
      refresh_token: bob.refreshToken,
    });
  });

  it("refuses an unknown mode and unknown properties", async () => {
    const created = await start();
    for (const body of [
      { login_code: created.login_code, mode: "steal" },
      { login_code: created.login_code, extra: 1 },
      { mode: "check" },
    ]) {
      expect((await complete(body)).headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
    }
  });

  describe("with an anonymous CLI session", () => {
    it("reports none without one, anonymous with a live one", async () => {
      const plain = await start();
      expect((await complete({ login_code: plain.login_code, mode: "check" })).body).toEqual({
        cli_session_state: "none",
      });

      const anonymous = await createSignedInUser(server, project.id, { isAnonymous: true });
      const created = await start({ anon_refresh_token: anonymous.refreshToken });
      const check = await complete({ login_code: created.login_code, mode: "check" });
      expect(check.status).toBe(200);
      expect(check.body).toEqual({ cli_session_state: "anonymous" });

      // Once the user is no longer anonymous (or the session ended) there is nothing to claim.
      await server.deps.db.update(users).set({ isAnonymous: false }).where(eq(users.id, anonymous.user.id));
      expect((await complete({ login_code: created.login_code, mode: "check" })).body).toEqual({
        cli_session_state: "none",
      });
      const claim = await complete({ login_code: created.login_code, mode: "claim-anon-session" });
      expect(claim.status).toBe(400);
    });

    it("lets the browser claim the anonymous user's session once", async () => {
      const anonymous = await createSignedInUser(server, project.id, { isAnonymous: true });
      const created = await start({ anon_refresh_token: anonymous.refreshToken });

      const claim = await complete({ login_code: created.login_code, mode: "claim-anon-session" });
      expect(claim.status).toBe(200);
      expect(Object.keys(claim.body).sort()).toEqual(["access_token", "refresh_token"]);
      // The CLI's own session, not a new one (PROTOCOL-EXTRA §8.9).
      expect(claim.body.refresh_token).toBe(anonymous.refreshToken);
      const claims = decodeJwt(claim.body.access_token);
      expect(claims.sub).toBe(anonymous.user.id);
      expect(claims.is_anonymous).toBe(true);
      const refreshed = await server.request("/api/v1/auth/sessions/current/refresh", {
        method: "POST",
        headers: project.headers("client", { "x-stack-refresh-token": claim.body.refresh_token }),
      });
      expect(refreshed.status).toBe(200);

      const again = await complete({ login_code: created.login_code, mode: "claim-anon-session" });
      expectPlainError(again, 400, "No anonymous session associated with this code");
      expect((await complete({ login_code: created.login_code, mode: "check" })).body).toEqual({
        cli_session_state: "none",
      });

      // The browser, now signed up for real, completes the login.
      const real = await createSignedInUser(server, project.id);
      expect(
        (await complete({ login_code: created.login_code, refresh_token: real.refreshToken })).status,
      ).toBe(200);
      expect((await poll(created.polling_code)).body).toEqual({
        status: "success",
        refresh_token: real.refreshToken,
      });
    });

    it("cannot claim after the login was completed", async () => {
      const anonymous = await createSignedInUser(server, project.id, { isAnonymous: true });
      const created = await start({ anon_refresh_token: anonymous.refreshToken });
      const real = await createSignedInUser(server, project.id);
      await complete({ login_code: created.login_code, refresh_token: real.refreshToken });
      expectInvalidLoginCode(await complete({ login_code: created.login_code, mode: "claim-anon-session" }));
    });

    it("refuses a claim when the attempt has no anonymous session", async () => {
      const created = await start();
      const claim = await complete({ login_code: created.login_code, mode: "claim-anon-session" });
      expect(claim.status).toBe(400);
      expect(claim.text).toContain("No anonymous session");
    });
  });
});
