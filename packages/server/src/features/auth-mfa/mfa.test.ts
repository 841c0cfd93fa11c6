import { createHmac, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { sha256Hex } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { codeFromEmail, latestEmailTo } from "../../testing/outbox.ts";
import type { Reply } from "../../testing/sign-up.ts";
import { expireCode, setClock, useRealClock } from "../../testing/time.ts";
import { verificationCodes } from "../verification-codes/schema.ts";
import { createVerificationCode } from "../verification-codes/service.ts";
import { mfaTotpUsage } from "./schema.ts";

const PASSWORD = "correct horse battery staple";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("MFA");
  await project.configure({
    "auth.password.allowSignIn": true,
    "auth.otp.allowSignIn": true,
  });
});
afterAll(() => server.close());

/** RFC 6238 written out independently of the server's library: SHA-1, 30 s, 6 digits. */
function totpAt(secret: Buffer, timestampMs = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(timestampMs / 30_000)));
  const hmac = createHmac("sha1", secret).update(counter).digest();
  const offset = hmac[hmac.length - 1]! & 0xf;
  return ((hmac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).toString().padStart(6, "0");
}

function post(
  path: string,
  body: unknown,
  target: TestProject = project,
  extra: Record<string, string> = {},
) {
  return server.request(`/api/v1${path}`, { method: "POST", headers: target.headers("client", extra), body });
}

const mfaSignIn = (code: string, totp: string, target: TestProject = project) =>
  post("/auth/mfa/sign-in", { type: "totp", totp, code }, target);

/** A password account with TOTP turned on through `PATCH /users/me`, as the SDK does it. */
async function mfaUser(target: TestProject = project) {
  const email = uniqueEmail("mfa");
  const signUp = await post("/auth/password/sign-up", { email, password: PASSWORD }, target);
  expect(signUp.status, signUp.text).toBe(200);
  const secret = randomBytes(20);
  const patch = await server.request("/api/v1/users/me", {
    method: "PATCH",
    headers: target.headers("client", { "x-stack-access-token": signUp.body.access_token }),
    body: { totp_secret_base64: secret.toString("base64") },
  });
  expect(patch.status, patch.text).toBe(200);
  return { email, secret, userId: signUp.body.user_id as string, accessToken: signUp.body.access_token };
}

/** The attempt code of a first-factor reply that must be MULTI_FACTOR_AUTHENTICATION_REQUIRED. */
function attemptCodeOf(reply: Reply): string {
  expect(reply.status, reply.text).toBe(400);
  expect(reply.body.code).toBe("MULTI_FACTOR_AUTHENTICATION_REQUIRED");
  const code = reply.body.details.attempt_code;
  expect(code).toMatch(/^[0-9a-z]{45}$/);
  return code;
}

const passwordAttempt = async (email: string, target: TestProject = project) =>
  attemptCodeOf(await post("/auth/password/sign-in", { email, password: PASSWORD }, target));

async function expectSignedIn(reply: Reply, userId: string, target: TestProject = project) {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body).toEqual({
    access_token: expect.any(String),
    refresh_token: expect.any(String),
    is_new_user: false,
    user_id: userId,
  });
  const me = await server.request("/api/v1/users/me", {
    headers: target.headers("client", { "x-stack-access-token": reply.body.access_token }),
  });
  expect(me.body.id).toBe(userId);
  expect(me.body.requires_totp_mfa).toBe(true);
}

async function attemptRow(code: string) {
  const [row] = await server.deps.db
    .select()
    .from(verificationCodes)
    .where(eq(verificationCodes.codeHash, sha256Hex(code)));
  return row!;
}

describe("POST /auth/mfa/sign-in", () => {
  it("finishes a password sign-in, and the attempt code is then used up", async () => {
    const { email, secret, userId } = await mfaUser();
    const code = await passwordAttempt(email);
    const reply = await mfaSignIn(code, totpAt(secret));
    await expectSignedIn(reply, userId);
    expectKnownError(
      await mfaSignIn(code, totpAt(secret, Date.now() + 30_000)),
      409,
      "VERIFICATION_CODE_ALREADY_USED",
    );
  });

  it("finishes an email-code (OTP) sign-in", async () => {
    const { email, secret, userId } = await mfaUser();
    // Password sign-up leaves the address unverified, and OTP refuses such accounts; verify it as a server would.
    const verified = await server.request(`/api/v1/users/${userId}`, {
      method: "PATCH",
      headers: project.headers("server"),
      body: { primary_email_verified: true },
    });
    expect(verified.status, verified.text).toBe(200);
    const sent = await post("/auth/otp/send-sign-in-code", {
      email,
      callback_url: "http://localhost:3000/handler/magic-link-callback",
    });
    expect(sent.status, sent.text).toBe(200);
    const otpCode = codeFromEmail((await latestEmailTo(server, project.id, email)).text);
    const attempt = attemptCodeOf(await post("/auth/otp/sign-in", { code: otpCode }));
    await expectSignedIn(await mfaSignIn(attempt, totpAt(secret)), userId);
  });

  it("applies to users a server created with a TOTP secret, but not to sessions a server creates", async () => {
    const email = uniqueEmail("server-made");
    const secret = randomBytes(20);
    const created = await server.request("/api/v1/users", {
      method: "POST",
      headers: project.headers("server"),
      body: { primary_email: email, password: PASSWORD, totp_secret_base64: secret.toString("base64") },
    });
    expect(created.status, created.text).toBe(201);
    const code = await passwordAttempt(email);
    await expectSignedIn(await mfaSignIn(code, totpAt(secret)), created.body.id);

    // The server holds the secret key; it vouches for the user itself.
    const session = await server.request("/api/v1/auth/sessions", {
      method: "POST",
      headers: project.headers("server"),
      body: { user_id: created.body.id },
    });
    expect(session.status, session.text).toBe(200);
    expect(session.body.access_token).toEqual(expect.any(String));
  });

  it("refuses a wrong code without using up the attempt code, counting an attempt each time", async () => {
    const { email, secret, userId } = await mfaUser();
    const code = await passwordAttempt(email);
    const right = totpAt(secret);
    const wrong = right === "123456" ? "654321" : "123456";
    for (const totp of [wrong, "12345", "1234567", "abcdef", "", totpAt(secret, Date.now() - 90_000)]) {
      expectKnownError(await mfaSignIn(code, totp), 400, "INVALID_TOTP_CODE");
    }
    expect((await attemptRow(code)).attemptCount).toBe(6);
    expect((await attemptRow(code)).usedAt).toBeNull();
    await expectSignedIn(await mfaSignIn(code, right), userId);
  });

  it("accepts the codes of the previous and the next 30 s step", async () => {
    // Mid-step and frozen, so that the step cannot roll over between making a code and checking it.
    setClock(Math.floor(Date.now() / 30_000) * 30_000 + 15_000);
    onTestFinished(useRealClock);
    const previous = await mfaUser();
    await expectSignedIn(
      await mfaSignIn(await passwordAttempt(previous.email), totpAt(previous.secret, Date.now() - 30_000)),
      previous.userId,
    );
    const next = await mfaUser();
    await expectSignedIn(
      await mfaSignIn(await passwordAttempt(next.email), totpAt(next.secret, Date.now() + 30_000)),
      next.userId,
    );
    // Two steps away is too far, either way.
    const far = await mfaUser();
    const code = await passwordAttempt(far.email);
    for (const offset of [-60_000, 60_000]) {
      expectKnownError(
        await mfaSignIn(code, totpAt(far.secret, Date.now() + offset)),
        400,
        "INVALID_TOTP_CODE",
      );
    }
  });

  it("accepts each TOTP code once, and no older code after a newer one", async () => {
    const { email, secret, userId } = await mfaUser();
    const now = Date.now();
    await expectSignedIn(await mfaSignIn(await passwordAttempt(email), totpAt(secret, now)), userId);

    const second = await passwordAttempt(email);
    expectKnownError(await mfaSignIn(second, totpAt(secret, now)), 400, "INVALID_TOTP_CODE");
    expectKnownError(await mfaSignIn(second, totpAt(secret, now - 30_000)), 400, "INVALID_TOTP_CODE");
    // The refused replays did not use up the attempt code: the next step's code still works with it.
    await expectSignedIn(await mfaSignIn(second, totpAt(secret, now + 30_000)), userId);
    const [usage] = await server.deps.db.select().from(mfaTotpUsage).where(eq(mfaTotpUsage.userId, userId));
    expect(usage!.lastStep).toBe(Math.floor(now / 30_000) + 1);
  });

  it("lets only one of two parallel uses of one TOTP code through", async () => {
    const { email, secret } = await mfaUser();
    const [first, second] = [await passwordAttempt(email), await passwordAttempt(email)];
    const totp = totpAt(secret);
    const replies = await Promise.all([mfaSignIn(first, totp), mfaSignIn(second, totp)]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(replies.find((r) => r.status === 400)!.body.code).toBe("INVALID_TOTP_CODE");
  });

  it("refuses expired, unknown, exhausted and other-purpose attempt codes", async () => {
    const { email, secret } = await mfaUser();
    const expired = await passwordAttempt(email);
    await expireCode(server, expired);
    expectKnownError(await mfaSignIn(expired, totpAt(secret)), 400, "VERIFICATION_CODE_EXPIRED");

    expectKnownError(await mfaSignIn("0".repeat(45), totpAt(secret)), 404, "VERIFICATION_CODE_NOT_FOUND");

    const exhausted = await passwordAttempt(email);
    await server.deps.db
      .update(verificationCodes)
      .set({ attemptCount: 20 })
      .where(eq(verificationCodes.codeHash, sha256Hex(exhausted)));
    expectKnownError(
      await mfaSignIn(exhausted, totpAt(secret)),
      400,
      "VERIFICATION_CODE_MAX_ATTEMPTS_REACHED",
    );

    // An email sign-in code is not an MFA attempt code, even though it has the same shape.
    const newcomer = uniqueEmail("otp");
    await post("/auth/otp/send-sign-in-code", { email: newcomer, callback_url: "http://localhost:3000/cb" });
    const otpCode = codeFromEmail((await latestEmailTo(server, project.id, newcomer)).text);
    expectKnownError(await mfaSignIn(otpCode, totpAt(secret)), 404, "VERIFICATION_CODE_NOT_FOUND");
  });

  it("refuses an attempt code of another project", async () => {
    const { email, secret } = await mfaUser();
    const code = await passwordAttempt(email);
    const other = await server.createProject("Other MFA");
    expectKnownError(await mfaSignIn(code, totpAt(secret), other), 404, "VERIFICATION_CODE_NOT_FOUND");
    expect((await attemptRow(code)).usedAt).toBeNull();
  });

  it("stops asking once MFA is turned off, and refuses attempt codes issued before", async () => {
    const { email, secret, accessToken } = await mfaUser();
    const before = await passwordAttempt(email);
    const off = await server.request("/api/v1/users/me", {
      method: "PATCH",
      headers: project.headers("client", { "x-stack-access-token": accessToken }),
      body: { totp_secret_base64: null },
    });
    expect(off.status, off.text).toBe(200);
    expect(off.body.requires_totp_mfa).toBe(false);
    const signIn = await post("/auth/password/sign-in", { email, password: PASSWORD });
    expect(signIn.status, signIn.text).toBe(200);
    expectKnownError(await mfaSignIn(before, totpAt(secret)), 400, "INVALID_TOTP_CODE");
  });

  it("refuses the attempt code of a user deleted since", async () => {
    const { email, secret, userId } = await mfaUser();
    const code = await passwordAttempt(email);
    const deleted = await server.request(`/api/v1/users/${userId}`, {
      method: "DELETE",
      headers: project.headers("server"),
    });
    expect(deleted.status, deleted.text).toBe(200);
    expectKnownError(await mfaSignIn(code, totpAt(secret)), 404, "VERIFICATION_CODE_NOT_FOUND");
    expect(await server.deps.db.select().from(mfaTotpUsage).where(eq(mfaTotpUsage.userId, userId))).toEqual(
      [],
    );
  });

  it("validates the body", async () => {
    const { email, secret } = await mfaUser();
    const code = await passwordAttempt(email);
    const totp = totpAt(secret);
    for (const body of [
      {},
      { type: "totp", totp },
      { type: "totp", code },
      { type: "sms", totp, code },
      { totp, code },
      { type: "totp", totp: 123456, code },
      { type: "totp", totp, code: code.slice(1) },
      { type: "totp", totp, code, extra: true },
    ]) {
      const reply = await post("/auth/mfa/sign-in", body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.code).toBe("SCHEMA_ERROR");
    }
    const noAccess = await server.request("/api/v1/auth/mfa/sign-in", {
      method: "POST",
      body: { type: "totp", totp, code },
    });
    expect(noAccess.headers.get("x-stack-known-error")).toBe("ACCESS_TYPE_REQUIRED");
    // None of that touched the attempt code.
    expect((await attemptRow(code)).usedAt).toBeNull();
  });

  it("rate-limits guesses per user across attempt codes", async () => {
    // The user's window starts at their first guess, so the eleven guesses share it on any clock.
    const { secret, userId } = await mfaUser();
    const wrong = totpAt(secret) === "000000" ? "111111" : "000000";
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      // Straight from the service: password sign-in has its own per-account limit, which would trip first.
      const { code } = await createVerificationCode(server.deps.db, {
        projectId: project.id,
        purpose: "mfa_attempt",
        data: { user_id: userId, is_new_user: false },
      });
      statuses.push((await mfaSignIn(code, wrong)).status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(400));
    expect(statuses[10]).toBe(429);
  });
});
