import { and, eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { uniqueEmail } from "../../testing/known-errors.ts";
import { codeFromEmail, emailsTo, latestEmailTo } from "../../testing/outbox.ts";
import { expireCode } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { users } from "../users/schema.ts";
import { findUser } from "../users/service.ts";
import { createVerificationCode } from "../verification-codes/service.ts";

const CALLBACK = "http://localhost:3000/handler/magic-link-callback";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  // Trusting the proxy lets tests name their IP with x-forwarded-for; without the header the IP is unknown.
  server = await createTestServer({ trustProxy: { hops: 1 } });
  project = await server.createProject("Otp Project");
  await project.configure({ "auth.otp.allowSignIn": true });
});
afterAll(() => server.close());

function sendCode(
  email: string,
  options: { project?: TestProject; headers?: Record<string, string>; body?: Record<string, unknown> } = {},
) {
  const target = options.project ?? project;
  return server.request("/api/v1/auth/otp/send-sign-in-code", {
    method: "POST",
    headers: target.headers("client", options.headers),
    body: { email, callback_url: CALLBACK, ...options.body },
  });
}

function signIn(code: unknown, options: { project?: TestProject; headers?: Record<string, string> } = {}) {
  const target = options.project ?? project;
  return server.request("/api/v1/auth/otp/sign-in", {
    method: "POST",
    headers: target.headers("client", options.headers),
    body: { code },
  });
}

function checkCode(code: unknown, target: TestProject = project) {
  return server.request("/api/v1/auth/otp/sign-in/check-code", {
    method: "POST",
    headers: target.headers("client"),
    body: { code },
  });
}

/** Sends a code and reads it back from the outbox. */
async function requestCode(email: string, target: TestProject = project) {
  const response = await sendCode(email, { project: target });
  expect(response.status, response.text).toBe(200);
  const mail = await latestEmailTo(server, target.id, email);
  return { nonce: response.body.nonce as string, code: codeFromEmail(mail.text), mail };
}

async function channelsOf(userId: string) {
  return server.deps.db.select().from(contactChannels).where(eq(contactChannels.userId, userId));
}

describe("POST /auth/otp/send-sign-in-code", () => {
  it("emails a magic link and a code whose tail is the nonce", async () => {
    const email = uniqueEmail();
    const response = await sendCode(email.toUpperCase());
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["nonce"]);
    const mail = await latestEmailTo(server, project.id, email);
    const code = codeFromEmail(mail.text);
    expect(code).toMatch(/^[0-9a-z]{45}$/);
    expect(response.body.nonce).toBe(code.slice(6));
    expect(mail.kind).toBe("magic_link");
    expect(mail.to).toEqual([email]);
    expect(mail.subject).toBe(`Sign in to Otp Project: Your code is ${code.slice(0, 6).toUpperCase()}`);
    expect(mail.text).toContain(`${CALLBACK}?code=${code}`);
  });

  it("adds the code to a callback URL that already has a query and a fragment", async () => {
    const email = uniqueEmail();
    await sendCode(email, { body: { callback_url: "http://localhost:3000/cb?next=%2Fhome#top" } });
    const mail = await latestEmailTo(server, project.id, email);
    const code = codeFromEmail(mail.text);
    expect(mail.text).toContain(`http://localhost:3000/cb?next=%2Fhome&code=${code}#top`);
  });

  it("accepts and ignores the bot-challenge fields the SDK sends", async () => {
    const response = await sendCode(uniqueEmail(), {
      body: { bot_challenge_token: "t", bot_challenge_phase: "invisible", bot_challenge_unavailable: "true" },
    });
    expect(response.status).toBe(200);
  });

  it("refuses bad bodies with SCHEMA_ERROR", async () => {
    for (const body of [
      {},
      { email: "not-an-email", callback_url: CALLBACK },
      { email: uniqueEmail() },
      { email: 42, callback_url: CALLBACK },
      { email: uniqueEmail(), callback_url: CALLBACK, extra: 1 },
      { email: uniqueEmail(), callback_url: CALLBACK, bot_challenge_phase: "loud" },
    ]) {
      const response = await server.request("/api/v1/auth/otp/send-sign-in-code", {
        method: "POST",
        headers: project.headers("client"),
        body,
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
    }
  });

  it("answers a plain 403 when email sign-in is off", async () => {
    const off = await server.createProject("No OTP");
    const response = await sendCode(uniqueEmail(), { project: off });
    expect(response.status).toBe(403);
    expect(response.text).toBe("OTP sign-in is not enabled for this project");
    expect(response.headers.get("content-type")).toContain("text/plain");
    expect(response.headers.get("x-stack-known-error")).toBeNull();
    const signInResponse = await signIn("a".repeat(45), { project: off });
    expect(signInResponse.status).toBe(403);
    expect(signInResponse.text).toBe("OTP sign-in is not enabled for this project");
  });

  it("refuses callback URLs outside the trusted domains", async () => {
    const email = uniqueEmail();
    for (const url of ["https://evil.example.com/cb", "javascript:alert(1)", "/relative", "not a url"]) {
      const response = await sendCode(email, { body: { callback_url: url } });
      expect(response.headers.get("x-stack-known-error"), url).toBe("REDIRECT_URL_NOT_WHITELISTED");
      expect(response.status).toBe(400);
    }
    expect(await emailsTo(server, project.id, email)).toHaveLength(0);

    const strict = await server.createProject("Strict domains");
    await strict.configure({
      "auth.otp.allowSignIn": true,
      "domains.allowLocalhost": false,
      "domains.trustedDomains.app": { baseUrl: "https://app.example.com", handlerPath: "/handler" },
    });
    const localhost = await sendCode(email, { project: strict });
    expect(localhost.headers.get("x-stack-known-error")).toBe("REDIRECT_URL_NOT_WHITELISTED");
    const trusted = await sendCode(email, {
      project: strict,
      body: { callback_url: "https://app.example.com/handler/magic-link-callback" },
    });
    expect(trusted.status).toBe(200);
  });

  it("refuses an existing account whose email is not verified", async () => {
    const email = uniqueEmail("unverified");
    await createSignedInUser(server, project.id, { primaryEmail: email, primaryEmailVerified: false });
    const response = await sendCode(email);
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({
      code: "USER_EMAIL_ALREADY_EXISTS",
      details: { email, would_work_if_email_was_verified: true },
    });
    expect(await emailsTo(server, project.id, email)).toHaveLength(0);
  });

  it("refuses new accounts when sign-up is off, but still serves existing ones", async () => {
    const closed = await server.createProject("Closed");
    await closed.configure({ "auth.otp.allowSignIn": true, "auth.allowSignUp": false });
    const refused = await sendCode(uniqueEmail(), { project: closed });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("x-stack-known-error")).toBe("SIGN_UP_NOT_ENABLED");

    const email = uniqueEmail("member");
    const { user } = await createSignedInUser(server, closed.id, {
      primaryEmail: email,
      primaryEmailVerified: true,
    });
    const { code } = await requestCode(email, closed);
    const response = await signIn(code, { project: closed });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ user_id: user.id, is_new_user: false });
  });
});

describe("POST /auth/otp/sign-in", () => {
  it("creates a verified account from a magic link, then signs it in with the typed code", async () => {
    const email = uniqueEmail("new");
    const first = await requestCode(email);
    const created = await signIn(first.code);
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual([
      "access_token",
      "is_new_user",
      "refresh_token",
      "user_id",
    ]);
    expect(created.body.is_new_user).toBe(true);
    const claims = decodeJwt(created.body.access_token);
    expect(claims).toMatchObject({
      sub: created.body.user_id,
      email,
      email_verified: true,
      is_anonymous: false,
    });

    const user = await findUser(server.deps.db, project.id, created.body.user_id);
    expect(user?.otpAuthEnabled).toBe(true);
    expect(await channelsOf(created.body.user_id)).toMatchObject([
      { value: email, isVerified: true, isPrimary: true, usedForAuth: true },
    ]);

    // The person types the 6 characters from the subject (in capitals); the client adds the nonce.
    const second = await requestCode(email);
    const typed = second.mail.subject.slice(-6) + second.nonce;
    expect(typed.toLowerCase()).toBe(second.code);
    const again = await signIn(typed);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ user_id: created.body.user_id, is_new_user: false });
  });

  it("signs in an existing verified account and turns email sign-in on for it", async () => {
    const email = uniqueEmail("existing");
    const { user } = await createSignedInUser(server, project.id, {
      primaryEmail: email,
      primaryEmailVerified: true,
    });
    expect(user.otpAuthEnabled).toBe(false);
    const { code } = await requestCode(email);
    const response = await signIn(code.toUpperCase());
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ user_id: user.id, is_new_user: false });
    expect((await findUser(server.deps.db, project.id, user.id))?.otpAuthEnabled).toBe(true);
  });

  it("upgrades the anonymous user of the request in place", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id, { isAnonymous: true });
    const email = uniqueEmail("anon");
    const { code } = await requestCode(email);
    const response = await signIn(code, {
      headers: { "x-stack-access-token": accessToken, "x-stack-allow-anonymous-user": "true" },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ user_id: user.id, is_new_user: true });
    expect(decodeJwt(response.body.access_token)).toMatchObject({ is_anonymous: false, email });
    const upgraded = await findUser(server.deps.db, project.id, user.id);
    expect(upgraded).toMatchObject({ isAnonymous: false, otpAuthEnabled: true });
    expect(await channelsOf(user.id)).toMatchObject([
      { value: email, isVerified: true, isPrimary: true, usedForAuth: true },
    ]);
  });

  it("signs an anonymous user into the existing account that owns the email, leaving the anonymous one", async () => {
    const email = uniqueEmail("owned");
    const { user: owner } = await createSignedInUser(server, project.id, {
      primaryEmail: email,
      primaryEmailVerified: true,
    });
    const { user: anonymous, accessToken } = await createSignedInUser(server, project.id, {
      isAnonymous: true,
    });
    const { code } = await requestCode(email);
    const response = await signIn(code, {
      headers: { "x-stack-access-token": accessToken, "x-stack-allow-anonymous-user": "true" },
    });
    expect(response.body).toMatchObject({ user_id: owner.id, is_new_user: false });
    expect((await findUser(server.deps.db, project.id, anonymous.id))?.isAnonymous).toBe(true);
  });

  it("re-checks the account when the code is used", async () => {
    // Sign-up was open when the code was sent and closed before it was used.
    const later = await server.createProject("Closing");
    await later.configure({ "auth.otp.allowSignIn": true });
    const { code } = await requestCode(uniqueEmail(), later);
    await later.configure({ "auth.allowSignUp": false });
    const closed = await signIn(code, { project: later });
    expect(closed.headers.get("x-stack-known-error")).toBe("SIGN_UP_NOT_ENABLED");

    // Someone registered the address, unverified, after the code went out.
    const email = uniqueEmail("raced");
    const pending = await requestCode(email);
    await createSignedInUser(server, project.id, { primaryEmail: email, primaryEmailVerified: false });
    const taken = await signIn(pending.code);
    expect(taken.status).toBe(409);
    expect(taken.body.details).toEqual({ email, would_work_if_email_was_verified: true });
  });

  it("asks for the second factor when the account has TOTP on", async () => {
    const email = uniqueEmail("mfa");
    await createSignedInUser(server, project.id, {
      primaryEmail: email,
      primaryEmailVerified: true,
      totpSecretEncrypted: "not-read-here",
    });
    const { code } = await requestCode(email);
    const response = await signIn(code);
    expect(response.headers.get("x-stack-known-error")).toBe("MULTI_FACTOR_AUTHENTICATION_REQUIRED");
    expect(response.body.details.attempt_code).toMatch(/^[0-9a-z]{45}$/);
  });

  it("refuses reused, expired, unknown and foreign codes with the documented errors", async () => {
    const { code } = await requestCode(uniqueEmail());
    expect((await signIn(code)).status).toBe(200);
    const reused = await signIn(code);
    expect(reused.status).toBe(409);
    expect(reused.headers.get("x-stack-known-error")).toBe("VERIFICATION_CODE_ALREADY_USED");

    const { code: stale } = await requestCode(uniqueEmail());
    await expireCode(server, stale);
    const expired = await signIn(stale);
    expect(expired.status).toBe(400);
    expect(expired.headers.get("x-stack-known-error")).toBe("VERIFICATION_CODE_EXPIRED");
    expect((await checkCode(stale)).headers.get("x-stack-known-error")).toBe("VERIFICATION_CODE_EXPIRED");

    const unknown = await signIn("0".repeat(45));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      code: "VERIFICATION_CODE_NOT_FOUND",
      error: "The verification code does not exist for this project.",
    });

    // A code of another purpose, or of another project, is not an OTP code here.
    const { code: verification } = await createVerificationCode(server.deps.db, {
      projectId: project.id,
      purpose: "email_verification",
      data: { user_id: "x", email: "x@example.com" },
    });
    expect((await signIn(verification)).headers.get("x-stack-known-error")).toBe(
      "VERIFICATION_CODE_NOT_FOUND",
    );
    const other = await server.createProject("Other OTP");
    await other.configure({ "auth.otp.allowSignIn": true });
    const { code: foreign } = await requestCode(uniqueEmail());
    expect((await signIn(foreign, { project: other })).status).toBe(404);
    expect((await signIn(foreign)).status).toBe(200);
  });

  it("refuses codes that are not exactly 45 characters with SCHEMA_ERROR", async () => {
    for (const code of ["a".repeat(44), "a".repeat(46), "", 123, null]) {
      const response = await signIn(code);
      expect(response.status, String(code)).toBe(400);
      expect(response.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
    }
    const missing = await server.request("/api/v1/auth/otp/sign-in", {
      method: "POST",
      headers: project.headers("client"),
      body: {},
    });
    expect(missing.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
  });

  it("locks a code after 20 wrong guesses on its nonce", async () => {
    const { code, nonce } = await requestCode(uniqueEmail());
    const wrongOtp = code.startsWith("zzzzzz") ? "yyyyyy" : "zzzzzz";
    for (let i = 0; i < 20; i++) {
      const guess = await signIn(wrongOtp + nonce);
      expect(guess.headers.get("x-stack-known-error")).toBe("VERIFICATION_CODE_NOT_FOUND");
    }
    const locked = await signIn(code);
    expect(locked.status).toBe(400);
    expect(locked.headers.get("x-stack-known-error")).toBe("VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");
  });
});

describe("POST /auth/otp/sign-in/check-code", () => {
  it("peeks without using the code", async () => {
    const { code } = await requestCode(uniqueEmail());
    const check = await checkCode(code);
    expect(check.status).toBe(200);
    expect(check.body).toEqual({ is_code_valid: true });
    expect((await signIn(code)).status).toBe(200);
    expect((await checkCode(code)).headers.get("x-stack-known-error")).toBe("VERIFICATION_CODE_ALREADY_USED");
    expect((await checkCode("x".repeat(10))).headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
  });
});

describe("users created by email sign-in", () => {
  it("are isolated per project: one address makes two accounts in two projects", async () => {
    const email = uniqueEmail("shared");
    const second = await server.createProject("Second OTP");
    await second.configure({ "auth.otp.allowSignIn": true });
    const a = await signIn((await requestCode(email)).code);
    const b = await signIn((await requestCode(email, second)).code, { project: second });
    expect(a.body.is_new_user).toBe(true);
    expect(b.body.is_new_user).toBe(true);
    expect(a.body.user_id).not.toBe(b.body.user_id);
    const rows = await server.deps.db
      .select()
      .from(users)
      .where(and(eq(users.id, b.body.user_id), eq(users.projectId, second.id)));
    expect(rows).toHaveLength(1);
  });
});
