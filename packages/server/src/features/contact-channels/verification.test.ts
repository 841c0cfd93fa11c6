import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { codeFromEmail, emailsTo, latestEmailTo } from "../../testing/outbox.ts";
import { expireCode } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { createVerificationCode } from "../verification-codes/service.ts";

const CALLBACK = "http://localhost:3000/handler/email-verification";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Verify Project");
});
afterAll(() => server.close());

function post(
  path: string,
  body: unknown,
  options: { token?: string; project?: TestProject; server?: boolean } = {},
) {
  const target = options.project ?? project;
  const extra: Record<string, string> = options.token ? { "x-stack-access-token": options.token } : {};
  return server.request(`/api/v1${path}`, {
    method: "POST",
    headers: target.headers(options.server ? "server" : "client", extra),
    body,
  });
}

/** A signed-in user whose primary email is not verified yet, with that channel's id. */
async function unverifiedUser(target: TestProject = project) {
  const email = uniqueEmail();
  const { user, accessToken } = await createSignedInUser(server, target.id, { primaryEmail: email });
  const listed = await server.request("/api/v1/contact-channels?user_id=me", {
    headers: target.headers("client", { "x-stack-access-token": accessToken }),
  });
  const channelId = listed.body.items[0].id as string;
  return { user, email, token: accessToken, channelId };
}

async function channel(token: string, channelId: string) {
  return (
    await server.request(`/api/v1/contact-channels/me/${channelId}`, {
      headers: project.headers("client", { "x-stack-access-token": token }),
    })
  ).body;
}

describe("email verification", () => {
  it("emails a link whose code verifies the channel", async () => {
    const { email, token, channelId } = await unverifiedUser();
    const sent = await post(
      `/contact-channels/me/${channelId}/send-verification-code`,
      { callback_url: CALLBACK },
      { token },
    );
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ success: true });
    const mail = await latestEmailTo(server, project.id, email);
    expect(mail.kind).toBe("email_verification");
    expect(mail.subject).toBe("Verify your email at Verify Project");
    const code = codeFromEmail(mail.text);
    expect(mail.text).toContain(`${CALLBACK}?code=${code}`);

    // Verification links are opened anywhere: no user is needed.
    const check = await post("/contact-channels/verify/check-code", { code });
    expect(check.body).toEqual({ is_code_valid: true });
    expect((await channel(token, channelId)).is_verified).toBe(false);
    const verified = await post("/contact-channels/verify", { code: code.toUpperCase() });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ success: true });
    expect((await channel(token, channelId)).is_verified).toBe(true);

    const reused = await post("/contact-channels/verify", { code });
    expect(reused.status).toBe(409);
    expect(reused.headers.get("x-stack-known-error")).toBe("VERIFICATION_CODE_ALREADY_USED");
    const again = await post(
      `/contact-channels/me/${channelId}/send-verification-code`,
      { callback_url: CALLBACK },
      { token },
    );
    expect(again.status).toBe(409);
    expect(again.headers.get("x-stack-known-error")).toBe("EMAIL_ALREADY_VERIFIED");
  });

  it("lets a server send for any user of its project", async () => {
    const { user, email, channelId } = await unverifiedUser();
    const sent = await post(
      `/contact-channels/${user.id}/${channelId}/send-verification-code`,
      { callback_url: CALLBACK },
      { server: true },
    );
    expect(sent.status).toBe(200);
    expect(await emailsTo(server, project.id, email)).toHaveLength(1);
  });

  it("refuses untrusted callback URLs, other users' channels and unknown channels", async () => {
    const { email, token, channelId, user } = await unverifiedUser();
    const untrusted = await post(
      `/contact-channels/me/${channelId}/send-verification-code`,
      { callback_url: "https://evil.example.com/verify" },
      { token },
    );
    expect(untrusted.headers.get("x-stack-known-error")).toBe("REDIRECT_URL_NOT_WHITELISTED");
    expect(await emailsTo(server, project.id, email)).toHaveLength(0);

    const other = await unverifiedUser();
    const foreign = await post(
      `/contact-channels/${user.id}/${channelId}/send-verification-code`,
      { callback_url: CALLBACK },
      { token: other.token },
    );
    expect(foreign.status).toBe(403);
    const notMine = await post(
      `/contact-channels/me/${channelId}/send-verification-code`,
      { callback_url: CALLBACK },
      { token: other.token },
    );
    expect(notMine.status).toBe(404);

    const elsewhere = await server.createProject("Elsewhere");
    const crossProject = await post(
      `/contact-channels/${user.id}/${channelId}/send-verification-code`,
      { callback_url: CALLBACK },
      { server: true, project: elsewhere },
    );
    expect(crossProject.status).toBe(404);
    const missingBody = await post(`/contact-channels/me/${channelId}/send-verification-code`, {}, { token });
    expect(missingBody.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
    // `me` with nobody signed in is the reference's 400, not a 401 (issue 35 item 4).
    expectKnownError(
      await post(`/contact-channels/me/${channelId}/send-verification-code`, { callback_url: CALLBACK }),
      400,
      "CANNOT_GET_OWN_USER_WITHOUT_USER",
    );
  });

  it("does not verify a channel that was changed or removed after the email went out", async () => {
    const { email, token, channelId } = await unverifiedUser();
    await post(
      `/contact-channels/me/${channelId}/send-verification-code`,
      { callback_url: CALLBACK },
      { token },
    );
    const code = codeFromEmail((await latestEmailTo(server, project.id, email)).text);
    const changed = await server.request(`/api/v1/contact-channels/me/${channelId}`, {
      method: "PATCH",
      headers: project.headers("client", { "x-stack-access-token": token }),
      body: { value: uniqueEmail() },
    });
    expect(changed.status).toBe(200);
    // The reference's plain 400 for a channel gone since the code was sent (issue 35 item 4).
    const refused = await post("/contact-channels/verify", { code });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("x-stack-known-error")).toBeNull();
    expect(refused.headers.get("content-type")).toContain("text/plain");
    expect(refused.text).toMatch(/^Contact channel not found/);
    expect((await channel(token, channelId)).is_verified).toBe(false);

    const second = await unverifiedUser();
    await post(
      `/contact-channels/me/${second.channelId}/send-verification-code`,
      { callback_url: CALLBACK },
      { token: second.token },
    );
    const secondCode = codeFromEmail((await latestEmailTo(server, project.id, second.email)).text);
    await server.request(`/api/v1/contact-channels/me/${second.channelId}`, {
      method: "DELETE",
      headers: project.headers("client", { "x-stack-access-token": second.token }),
    });
    const deleted = await post("/contact-channels/verify", { code: secondCode });
    expect({ status: deleted.status, known: deleted.headers.get("x-stack-known-error") }).toEqual({
      status: 400,
      known: null,
    });
    expect(deleted.text).toMatch(/^Contact channel not found/);
  });

  it("accepts codes of the password sign-up shape", async () => {
    const { user, email, token, channelId } = await unverifiedUser();
    const { code } = await createVerificationCode(server.deps.db, {
      projectId: project.id,
      purpose: "email_verification",
      data: { user_id: user.id, email },
    });
    expect((await post("/contact-channels/verify", { code })).status).toBe(200);
    expect((await channel(token, channelId)).is_verified).toBe(true);
  });

  it("refuses expired, unknown, foreign and malformed codes", async () => {
    const { user, email } = await unverifiedUser();
    const { code } = await createVerificationCode(server.deps.db, {
      projectId: project.id,
      purpose: "email_verification",
      data: { user_id: user.id, email },
    });
    const elsewhere = await server.createProject("Code elsewhere");
    expect((await post("/contact-channels/verify", { code }, { project: elsewhere })).status).toBe(404);
    await expireCode(server, code);
    const expired = await post("/contact-channels/verify", { code });
    expect(expired.status).toBe(400);
    expect(expired.headers.get("x-stack-known-error")).toBe("VERIFICATION_CODE_EXPIRED");
    expect(
      (await post("/contact-channels/verify/check-code", { code })).headers.get("x-stack-known-error"),
    ).toBe("VERIFICATION_CODE_EXPIRED");

    const unknown = await post("/contact-channels/verify", { code: "1".repeat(45) });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("x-stack-known-error")).toBe("VERIFICATION_CODE_NOT_FOUND");
    const { code: otp } = await createVerificationCode(server.deps.db, {
      projectId: project.id,
      purpose: "otp_sign_in",
      data: { email, user_id: user.id },
    });
    expect((await post("/contact-channels/verify", { code: otp })).status).toBe(404);

    for (const body of [{ code: "short" }, { code: "1".repeat(46) }, {}, { code: 5 }]) {
      const response = await post("/contact-channels/verify", body);
      expect(response.headers.get("x-stack-known-error"), JSON.stringify(body)).toBe("SCHEMA_ERROR");
    }
  });
});

describe("POST /contact-channels/send-verification-code (legacy)", () => {
  it("sends for the signed-in user's primary email only", async () => {
    const { email, token, channelId } = await unverifiedUser();
    const wrong = await post(
      "/contact-channels/send-verification-code",
      { email: "other@example.com", callback_url: CALLBACK },
      { token },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({
      code: "EMAIL_IS_NOT_PRIMARY_EMAIL",
      details: { email: "other@example.com", primary_email: email },
    });
    const sent = await post(
      "/contact-channels/send-verification-code",
      { email: email.toUpperCase(), callback_url: CALLBACK },
      { token },
    );
    expect(sent.body).toEqual({ success: true });
    const code = codeFromEmail((await latestEmailTo(server, project.id, email)).text);
    expect((await post("/contact-channels/verify", { code })).status).toBe(200);
    expect((await channel(token, channelId)).is_verified).toBe(true);
    const already = await post(
      "/contact-channels/send-verification-code",
      { email, callback_url: CALLBACK },
      { token },
    );
    expect(already.headers.get("x-stack-known-error")).toBe("EMAIL_ALREADY_VERIFIED");
  });

  it("needs a user, and a primary email", async () => {
    const anonymous = await post("/contact-channels/send-verification-code", {
      email: uniqueEmail(),
      callback_url: CALLBACK,
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("x-stack-known-error")).toBe("USER_AUTHENTICATION_REQUIRED");

    const { accessToken } = await createSignedInUser(server, project.id);
    const email = uniqueEmail();
    const noPrimary = await post(
      "/contact-channels/send-verification-code",
      { email, callback_url: CALLBACK },
      { token: accessToken },
    );
    expect(noPrimary.body).toMatchObject({
      code: "EMAIL_IS_NOT_PRIMARY_EMAIL",
      details: { email, primary_email: null },
    });
  });
});

describe("verification email rate limit", () => {
  it("limits emails per recipient", async () => {
    // The recipient's window starts at the first email, so every send here falls in it on any clock.
    const limited = await server.createProject("Verify limits");
    await limited.configure({});
    const { token, channelId } = await unverifiedUser(limited);
    const send = () =>
      post(
        `/contact-channels/me/${channelId}/send-verification-code`,
        { callback_url: CALLBACK },
        { token, project: limited },
      );
    for (let i = 0; i < RATE_LIMITS.emailPerRecipient.limit; i++) expect((await send()).status).toBe(200);
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
