/**
 * CLI login from an anonymous session, the whole way the reference's CLI and its browser page go (PROTOCOL-EXTRA
 * §8.9): the CLI signs in anonymously and starts a login with that session; the page, not signed in, checks the
 * code, claims the anonymous session, signs up (an in-place upgrade of that user), then completes with its own
 * refresh token, which the CLI collects: both then hold one session of one, no longer anonymous, user.
 */
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectPlainError, uniqueEmail } from "../../testing/known-errors.ts";
import { INVALID_LOGIN_CODE_MESSAGE } from "./service.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("CLI from anonymous");
});
afterAll(() => server.close());

const post = (path: string, body: unknown, extra: Record<string, string> = {}) =>
  server.request(`/api/v1${path}`, { method: "POST", headers: project.headers("client", extra), body });

async function refresh(refreshToken: string) {
  const response = await post(
    "/auth/sessions/current/refresh",
    {},
    { "x-stack-refresh-token": refreshToken },
  );
  expect(response.status, response.text).toBe(200);
  return decodeJwt(response.body.access_token as string);
}

describe("CLI login from an anonymous session", () => {
  it("check, claim once, upgrade in place, complete: the CLI and the browser share one session", async () => {
    // The CLI: an anonymous user of its own, then a login carrying that session.
    const anonymous = await post("/auth/anonymous/sign-up", {});
    expect(anonymous.status, anonymous.text).toBe(200);
    const cliAnonToken = anonymous.body.refresh_token as string;
    const started = await post("/auth/cli", { anon_refresh_token: cliAnonToken });
    expect(started.status, started.text).toBe(200);
    const { login_code, polling_code } = started.body as { login_code: string; polling_code: string };

    // The browser page, nobody signed in there.
    const check = await post("/auth/cli/complete", { login_code, mode: "check" });
    expect({ status: check.status, body: check.body }).toEqual({
      status: 200,
      body: { cli_session_state: "anonymous" },
    });
    const claim = await post("/auth/cli/complete", { login_code, mode: "claim-anon-session" });
    expect(claim.status, claim.text).toBe(200);
    expect(claim.body).toEqual({ access_token: expect.any(String), refresh_token: cliAnonToken });
    expect(decodeJwt(claim.body.access_token)).toMatchObject({
      sub: anonymous.body.user_id,
      is_anonymous: true,
    });
    expectPlainError(
      await post("/auth/cli/complete", { login_code, mode: "claim-anon-session" }),
      400,
      "No anonymous session associated with this code",
    );

    // Signing up as the claimed anonymous user upgrades it in place.
    const signUp = await post(
      "/auth/password/sign-up",
      { email: uniqueEmail("cli"), password: "correct horse battery" },
      { "x-stack-access-token": claim.body.access_token, "x-stack-allow-anonymous-user": "true" },
    );
    expect(signUp.status, signUp.text).toBe(200);
    expect(signUp.body.user_id).toBe(anonymous.body.user_id);
    const browserToken = signUp.body.refresh_token as string;

    const completed = await post("/auth/cli/complete", { login_code, refresh_token: browserToken });
    expect({ status: completed.status, body: completed.body }).toEqual({
      status: 200,
      body: { success: true },
    });

    // The CLI collects the browser's own token: one session, of the upgraded user.
    const collected = await post("/auth/cli/poll", { polling_code });
    expect({ status: collected.status, body: collected.body }).toEqual({
      status: 201,
      body: { status: "success", refresh_token: browserToken },
    });
    expect(await refresh(browserToken)).toMatchObject({ sub: anonymous.body.user_id, is_anonymous: false });
    expect((await post("/auth/cli/poll", { polling_code })).body).toEqual({ status: "used" });

    // Not idempotent: the code is spent for every mode.
    for (const mode of ["check", "claim-anon-session", "complete"]) {
      expectPlainError(
        await post("/auth/cli/complete", { login_code, mode, refresh_token: browserToken }),
        400,
        INVALID_LOGIN_CODE_MESSAGE,
      );
    }
  });

  it("lets a signed-in browser complete at once, leaving the CLI's anonymous user as it was", async () => {
    const anonymous = await post("/auth/anonymous/sign-up", {});
    const started = await post("/auth/cli", { anon_refresh_token: anonymous.body.refresh_token });
    const signedIn = await post("/auth/password/sign-up", {
      email: uniqueEmail("browser"),
      password: "correct horse battery",
    });
    expect(signedIn.status, signedIn.text).toBe(200);
    const completed = await post(
      "/auth/cli/complete",
      { login_code: started.body.login_code, refresh_token: signedIn.body.refresh_token },
      { "x-stack-access-token": signedIn.body.access_token },
    );
    expect(completed.body).toEqual({ success: true });
    expect((await post("/auth/cli/poll", { polling_code: started.body.polling_code })).body).toEqual({
      status: "success",
      refresh_token: signedIn.body.refresh_token,
    });
    // No merge: the anonymous user is still there, still anonymous.
    expect(await refresh(anonymous.body.refresh_token)).toMatchObject({
      sub: anonymous.body.user_id,
      is_anonymous: true,
    });
  });

  it("answers complete without a refresh token with the reference's text", async () => {
    const started = await post("/auth/cli", {});
    expectPlainError(
      await post("/auth/cli/complete", { login_code: started.body.login_code }),
      400,
      "refresh_token is required when mode is 'complete'",
    );
  });
});
