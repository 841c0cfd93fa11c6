import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { passwordApi } from "../../testing/sign-up.ts";
import { createSignedInUser } from "../../testing/users.ts";

let server: TestServer;
let project: TestProject;
let api: ReturnType<typeof passwordApi>;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Password update");
  api = passwordApi(server, project);
});
afterAll(() => server.close());

const OLD_PASSWORD = "the old password";
const NEW_PASSWORD = "the new password";

/** A user with a password and three sessions, each signed in through the API. */
async function userWithSessions() {
  const email = uniqueEmail("update");
  await createSignedInUser(server, project.id, {
    primaryEmail: email,
    passwordHash: await hashPassword(OLD_PASSWORD),
  });
  const sessions = [];
  for (let i = 0; i < 3; i++) {
    const response = await api.signIn(email, OLD_PASSWORD);
    expect(response.status).toBe(200);
    sessions.push({ accessToken: response.body.access_token, refreshToken: response.body.refresh_token });
  }
  return { email, sessions };
}

const update = (accessToken: string | null, body: unknown, extra: Record<string, string> = {}) =>
  api.post("/auth/password/update", body, accessToken ? api.asUser(accessToken, extra) : extra);
const setPassword = (accessToken: string | null, body: unknown) =>
  api.post("/auth/password/set", body, accessToken ? api.asUser(accessToken) : {});

describe("POST /auth/password/update", () => {
  it("changes the password, keeps the session of the refresh-token header and ends the others", async () => {
    const { email, sessions } = await userWithSessions();
    const [current, other, third] = sessions as [
      (typeof sessions)[0],
      (typeof sessions)[0],
      (typeof sessions)[0],
    ];
    // The access token of one session, the refresh token of another: the header wins.
    const response = await update(
      current.accessToken,
      { old_password: OLD_PASSWORD, new_password: NEW_PASSWORD },
      { "x-stack-refresh-token": other.refreshToken },
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect((await api.refresh(other.refreshToken)).status).toBe(200);
    expect((await api.refresh(current.refreshToken)).status).toBe(401);
    expect((await api.refresh(third.refreshToken)).status).toBe(401);

    expectKnownError(await api.signIn(email, OLD_PASSWORD), 400, "EMAIL_PASSWORD_MISMATCH");
    expect((await api.signIn(email, NEW_PASSWORD)).status).toBe(200);
  });

  it("keeps the access token's session when no refresh token is sent", async () => {
    const { sessions } = await userWithSessions();
    const [current, ...others] = sessions;
    const response = await update(current!.accessToken, {
      old_password: OLD_PASSWORD,
      new_password: NEW_PASSWORD,
    });
    expect(response.status).toBe(200);
    expect((await api.refresh(current!.refreshToken)).status).toBe(200);
    for (const other of others) expect((await api.refresh(other.refreshToken)).status).toBe(401);
  });

  it("ignores a refresh token of another user", async () => {
    const mine = await userWithSessions();
    const theirs = await userWithSessions();
    const response = await update(
      mine.sessions[0]!.accessToken,
      { old_password: OLD_PASSWORD, new_password: NEW_PASSWORD },
      { "x-stack-refresh-token": theirs.sessions[0]!.refreshToken },
    );
    expect(response.status).toBe(200);
    expect((await api.refresh(mine.sessions[0]!.refreshToken)).status).toBe(200);
    expect((await api.refresh(mine.sessions[1]!.refreshToken)).status).toBe(401);
    for (const session of theirs.sessions) expect((await api.refresh(session.refreshToken)).status).toBe(200);
  });

  it("refuses a wrong old password and leaves everything as it was", async () => {
    const { email, sessions } = await userWithSessions();
    const response = await update(sessions[0]!.accessToken, {
      old_password: "not the password",
      new_password: NEW_PASSWORD,
    });
    expectKnownError(response, 400, "PASSWORD_CONFIRMATION_MISMATCH");
    for (const session of sessions) expect((await api.refresh(session.refreshToken)).status).toBe(200);
    expect((await api.signIn(email, OLD_PASSWORD)).status).toBe(200);
  });

  it("enforces the length rules on the new password", async () => {
    const { sessions } = await userWithSessions();
    const token = sessions[0]!.accessToken;
    expectKnownError(
      await update(token, { old_password: OLD_PASSWORD, new_password: "short" }),
      400,
      "PASSWORD_TOO_SHORT",
      {
        min_length: 8,
      },
    );
    expectKnownError(
      await update(token, { old_password: OLD_PASSWORD, new_password: "x".repeat(71) }),
      400,
      "PASSWORD_TOO_LONG",
      { maxLength: 70 },
    );
  });

  it("needs a signed-in user with a password", async () => {
    // As the reference: the user is part of its request schema, so none is a SCHEMA_ERROR rather than a 401.
    expectKnownError(
      await update(null, { old_password: OLD_PASSWORD, new_password: NEW_PASSWORD }),
      400,
      "SCHEMA_ERROR",
      {
        message:
          "Request validation failed on POST /api/v1/auth/password/update:\n- auth.user must be defined",
      },
    );
    const { accessToken } = await createSignedInUser(server, project.id, { primaryEmail: uniqueEmail() });
    expectKnownError(
      await update(accessToken, { old_password: OLD_PASSWORD, new_password: NEW_PASSWORD }),
      400,
      "USER_DOES_NOT_HAVE_PASSWORD",
    );
    expectKnownError(
      await update(accessToken, { new_password: NEW_PASSWORD }),
      400,
      "SCHEMA_ERROR",
      expect.anything() as never,
    );
  });

  it("is rate limited like sign-in", async () => {
    const { sessions } = await userWithSessions();
    const token = sessions[0]!.accessToken;
    const answers = await Promise.all(
      Array.from({ length: 13 }, () =>
        update(token, { old_password: "wrong guess", new_password: NEW_PASSWORD }),
      ),
    );
    expect(answers.filter((a) => a.status === 400)).toHaveLength(10);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(3);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("POST /auth/password/set", () => {
  it("gives a password to a user who has none, once", async () => {
    const email = uniqueEmail("set");
    const { accessToken } = await createSignedInUser(server, project.id, { primaryEmail: email });
    expectKnownError(await setPassword(accessToken, { password: "short" }), 400, "PASSWORD_TOO_SHORT", {
      min_length: 8,
    });
    const response = await setPassword(accessToken, { password: NEW_PASSWORD });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect((await api.signIn(email, NEW_PASSWORD)).status).toBe(200);

    const again = await setPassword(accessToken, { password: "yet another password" });
    expect(again.status).toBe(400);
    expect(again.headers.get("x-stack-known-error")).toBeNull();
    expect(again.text).toContain("already has a password");
    expect((await api.signIn(email, NEW_PASSWORD)).status).toBe(200);
  });

  it("needs a signed-in user, which the reference checks as part of the request's schema", async () => {
    expectKnownError(await setPassword(null, { password: NEW_PASSWORD }), 400, "SCHEMA_ERROR", {
      message: "Request validation failed on POST /api/v1/auth/password/set:\n- auth.user must be defined",
    });
  });
});
