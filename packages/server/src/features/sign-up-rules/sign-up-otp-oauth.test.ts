/**
 * Sign-up rules on email-code (OTP) sign-up and OAuth sign-up (the real development provider), new accounts and
 * anonymous upgrades, through the real routes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { codeFromEmail, latestEmailTo } from "../../testing/outbox.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { devProviderEmail } from "../oauth/dev-provider.ts";
import { redirectError, runFlow, signInWithDevProvider } from "../oauth/test-support.ts";
import { findUser } from "../users/service.ts";
import { SIGN_UP_REJECTED_MESSAGE } from "./apply.ts";
import { configureRules, NOTHING, projectRowCounts, triggerData, triggeredRules } from "./test-support.ts";

const CALLBACK = "http://localhost:3000/handler/magic-link-callback";
let server: TestServer;

beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

async function newProject(name: string) {
  const project = await server.createProject(name);
  await project.configure({
    "auth.otp.allowSignIn": true,
    "auth.oauth.providers.github": { isShared: true },
    "teams.createPersonalTeamOnSignUp": true,
  });
  return project;
}

/** Sends an email code and reads it from the outbox. */
async function emailedCode(project: TestProject, email: string) {
  const sent = await server.request("/api/v1/auth/otp/send-sign-in-code", {
    method: "POST",
    headers: project.headers("client"),
    body: { email, callback_url: CALLBACK },
  });
  expect(sent.status, sent.text).toBe(200);
  return codeFromEmail((await latestEmailTo(server, project.id, email)).text);
}

function otpSignIn(project: TestProject, code: string, headers: Record<string, string> = {}) {
  return server.request("/api/v1/auth/otp/sign-in", {
    method: "POST",
    headers: project.headers("client", headers),
    body: { code },
  });
}

async function serverUser(project: TestProject, userId: string) {
  const response = await server.request(`/api/v1/users/${userId}`, { headers: project.headers("server") });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

const anonymousHeaders = (accessToken: string) => ({
  "x-stack-access-token": accessToken,
  "x-stack-allow-anonymous-user": "true",
});

describe("email-code (OTP) sign-up", () => {
  it("is rejected by a reject rule when the code is used, leaving nothing behind", async () => {
    const project = await newProject("OTP reject");
    await configureRules(project, { "no-otp": { condition: 'authMethod == "otp"', action: "reject" } });
    const code = await emailedCode(project, "otp-new@example.com");
    expectKnownError(await otpSignIn(project, code), 403, "SIGN_UP_REJECTED", {
      message: SIGN_UP_REJECTED_MESSAGE,
    });
    expect(await projectRowCounts(server, project.id)).toEqual(NOTHING);
    expect(await triggeredRules(server, project.id)).toEqual([
      triggerData("no-otp", "reject", "otp-new@example.com", "otp"),
    ]);
  });

  it("creates a restricted user under a restrict rule, and still signs existing users in", async () => {
    const project = await newProject("OTP restrict");
    const { user: existing } = await createSignedInUser(server, project.id, {
      primaryEmail: "otp-existing@example.com",
      primaryEmailVerified: true,
    });
    await configureRules(
      project,
      { "otp-review": { displayName: "Review", condition: 'authMethod == "otp"', action: "restrict" } },
      "allow",
    );
    const response = await otpSignIn(project, await emailedCode(project, "otp-restricted@example.com"));
    expect(response.status, response.text).toBe(200);
    expect(response.body.is_new_user).toBe(true);
    expect(await serverUser(project, response.body.user_id)).toMatchObject({
      restricted_by_admin: true,
      restricted_by_admin_private_details: "Restricted by sign-up rule: otp-review (Review)",
      primary_email_verified: true,
    });

    await configureRules(project, { "otp-review": { condition: "true", action: "reject" } }, "reject");
    const signIn = await otpSignIn(project, await emailedCode(project, "otp-existing@example.com"));
    expect(signIn.status, signIn.text).toBe(200);
    expect(signIn.body).toMatchObject({ user_id: existing.id, is_new_user: false });
  });

  it("keeps an anonymous user anonymous when their email-code sign-up is rejected", async () => {
    const project = await newProject("OTP anonymous reject");
    await configureRules(project, {}, "reject");
    const { user, accessToken } = await createSignedInUser(server, project.id, { isAnonymous: true });
    const before = await projectRowCounts(server, project.id);
    const code = await emailedCode(project, "otp-anon@example.com");
    expectKnownError(await otpSignIn(project, code, anonymousHeaders(accessToken)), 403, "SIGN_UP_REJECTED", {
      message: SIGN_UP_REJECTED_MESSAGE,
    });
    expect((await findUser(server.deps.db, project.id, user.id))?.isAnonymous).toBe(true);
    expect(await projectRowCounts(server, project.id)).toEqual(before);
  });
});

describe("OAuth sign-up", () => {
  it("sends a rejected sign-up to the app's error redirect with SIGN_UP_REJECTED, creating nothing", async () => {
    const project = await newProject("OAuth reject");
    await configureRules(project, {
      "no-github": { condition: 'authMethod == "oauth" && oauthProvider == "github"', action: "reject" },
    });
    const { location } = await runFlow(server, project, "octo@example.com");
    expect(redirectError(location)).toEqual({
      code: "SIGN_UP_REJECTED",
      details: { message: SIGN_UP_REJECTED_MESSAGE },
    });
    expect(await projectRowCounts(server, project.id)).toEqual(NOTHING);
    expect(await triggeredRules(server, project.id)).toEqual([
      // The development provider's address, as it claims it: marked.
      triggerData("no-github", "reject", devProviderEmail("octo@example.com"), "oauth", "github"),
    ]);
  });

  it("creates a restricted user under a restrict rule, and signs the same account in later", async () => {
    const project = await newProject("OAuth restrict");
    await configureRules(project, {
      "oauth-review": { condition: 'authMethod == "oauth"', action: "restrict" },
    });
    const { tokens } = await signInWithDevProvider(server, project, "octo-restricted@example.com");
    expect(tokens.is_new_user).toBe(true);
    // A restricted user's token is refused unless the request lets restricted users through.
    const me = await server.request("/api/v1/users/me", {
      headers: project.headers("server", {
        "x-stack-access-token": tokens.access_token,
        "x-stack-allow-restricted-user": "true",
      }),
    });
    expect(me.status, me.text).toBe(200);
    expect(me.body).toMatchObject({
      restricted_by_admin: true,
      restricted_by_admin_private_details: "Restricted by sign-up rule: oauth-review",
    });

    // Signing in again is not a sign-up: even a reject-everything policy lets the account in.
    await configureRules(project, { "oauth-review": { condition: "true", action: "reject" } }, "reject");
    const again = await signInWithDevProvider(server, project, "octo-restricted@example.com");
    expect(again.tokens.is_new_user).toBe(false);
  });

  it("upgrades an anonymous user only when the rules allow it", async () => {
    const project = await newProject("OAuth anonymous");
    await configureRules(project, {
      // The development provider claims marked addresses: `anon@evil.test` arrives as below.
      "block-evil": { condition: 'emailDomain == "evil.test.dev-oauth.invalid"', action: "reject" },
    });
    const { user, accessToken } = await createSignedInUser(server, project.id, { isAnonymous: true });

    const rejected = await runFlow(server, project, "anon@evil.test", { token: accessToken });
    expect(redirectError(rejected.location).code).toBe("SIGN_UP_REJECTED");
    expect((await findUser(server.deps.db, project.id, user.id))?.isAnonymous).toBe(true);

    const { tokens } = await signInWithDevProvider(server, project, "anon@example.com", {
      token: accessToken,
    });
    expect(tokens.is_new_user).toBe(true);
    expect(await findUser(server.deps.db, project.id, user.id)).toMatchObject({
      isAnonymous: false,
      restrictedByAdmin: false,
    });
  });
});
