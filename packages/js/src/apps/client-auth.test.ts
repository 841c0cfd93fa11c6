import { isKnownError } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAccessToken } from "../session/jwt.ts";
import { appsFor, recordingRuntime, totpCode, uniqueEmail } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";
import { withClaims } from "../testing/tokens.ts";

const PASSWORD = "correct horse battery";
const CALLBACK = "http://localhost:3000/handler/callback";
let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  gh = await startGatehouse();
  const project = await gh.createProject();
  apps = appsFor(gh, project);
  await apps
    .admin()
    .getProject()
    .then((p) => p.update({ config: { magicLinkEnabled: true } }));
});
afterAll(() => gh?.close());

describe("password sign-up and sign-in", () => {
  it("signs up, keeps the tokens in the app's store, and reads the user", async () => {
    const app = apps.client();
    const email = uniqueEmail();
    expect(await app.getUser()).toBeNull();
    expect(await app.signUpWithCredential({ email, password: PASSWORD })).toEqual({
      status: "ok",
      data: undefined,
    });
    const user = await app.getUser({ or: "throw" });
    expect(user).toMatchObject({ primaryEmail: email, hasPassword: true, isAnonymous: false });
    expect(user.signedUpAt).toBeInstanceOf(Date);
    // Another app (another memory store) is not signed in.
    expect(await apps.client().getUser()).toBeNull();
    await expect(apps.client().getUser({ or: "throw" })).rejects.toSatisfy((e) =>
      isKnownError(e, "USER_AUTHENTICATION_REQUIRED"),
    );
  });

  it("returns expected sign-up failures as results", async () => {
    const email = uniqueEmail();
    await apps.client().signUpWithCredential({ email, password: PASSWORD });
    const taken = await apps.client().signUpWithCredential({ email, password: PASSWORD });
    expect(taken.status === "error" && taken.error.code).toBe("USER_EMAIL_ALREADY_EXISTS");
    const short = await apps.client().signUpWithCredential({ email: uniqueEmail(), password: "short" });
    expect(short.status === "error" && isKnownError(short.error, "PASSWORD_REQUIREMENTS_NOT_MET")).toBe(true);
  });

  it("signs in, refuses a wrong password, and signs out", async () => {
    const email = uniqueEmail();
    await apps.client().signUpWithCredential({ email, password: PASSWORD });
    const app = apps.client();
    const wrong = await app.signInWithCredential({ email, password: "wrong password!" });
    expect(wrong.status === "error" && wrong.error.code).toBe("EMAIL_PASSWORD_MISMATCH");
    expect((await app.signInWithCredential({ email, password: PASSWORD })).status).toBe("ok");
    const refreshToken = await app.getRefreshToken();
    expect((await app.getUser())?.primaryEmail).toBe(email);

    await app.signOut();
    expect(await app.getUser()).toBeNull();
    expect(await app.getAccessToken()).toBeNull();
    // The session is gone on the server too: its refresh token no longer works.
    const stale = apps.client({ tokenStore: { accessToken: null, refreshToken } });
    expect(await stale.getAccessToken()).toBeNull();
  });

  it("refuses to sign in without a persistent token store", async () => {
    const app = apps.client({ tokenStore: null });
    await expect(app.signInWithCredential({ email: uniqueEmail(), password: PASSWORD })).rejects.toThrow(
      /persistent token store/,
    );
  });
});

describe("access tokens", () => {
  it("refreshes an expired access token before using it", async () => {
    const app = apps.client();
    await app.signUpWithCredential({ email: uniqueEmail(), password: PASSWORD });
    const { accessToken, refreshToken } = await app.getAuthJson();
    const expired = withClaims(accessToken!, { exp: Math.floor(Date.now() / 1000) - 10 });
    const { runtime, calls } = recordingRuntime();
    const other = apps.client({ tokenStore: { accessToken: expired, refreshToken }, runtime });
    expect((await other.getUser())?.id).toBe((await app.getUser())?.id);
    expect(calls).toEqual(["POST /auth/oauth/token", "GET /users/me"]);
    const fresh = decodeAccessToken((await other.getAccessToken())!);
    expect(fresh!.exp! * 1000).toBeGreaterThan(Date.now() + 60_000);
  });

  it("refreshes and retries once when the server rejects the access token", async () => {
    const app = apps.client();
    await app.signUpWithCredential({ email: uniqueEmail(), password: PASSWORD });
    const { accessToken, refreshToken } = await app.getAuthJson();
    // Valid-looking to the SDK (future expiry), but the signature no longer matches.
    const forged = withClaims(accessToken!, { name: "forged" });
    const { runtime, calls } = recordingRuntime();
    const other = apps.client({ tokenStore: { accessToken: forged, refreshToken }, runtime });
    expect((await other.getUser())?.displayName).toBeNull();
    expect(calls).toEqual(["GET /users/me", "POST /auth/oauth/token", "GET /users/me"]);
  });

  it("a revoked session counts as signed out and clears both tokens", async () => {
    const email = uniqueEmail();
    const first = apps.client();
    await first.signUpWithCredential({ email, password: PASSWORD });
    const second = apps.client();
    await second.signInWithCredential({ email, password: PASSWORD });

    const sessions = await (await first.getUser({ or: "throw" })).getActiveSessions();
    expect(sessions).toHaveLength(2);
    const other = sessions.find((session) => !session.isCurrentSession)!;
    await (await first.getUser({ or: "throw" })).revokeSession(other.id);

    // The second app's access token is still a valid JWT; once it is gone, the refresh fails: signed out.
    const { accessToken, refreshToken } = await second.getAuthJson();
    const store = { accessToken: withClaims(accessToken!, { exp: 1 }), refreshToken };
    const viaRevoked = apps.client({ tokenStore: store });
    expect(await viaRevoked.getUser()).toBeNull();
    expect(await viaRevoked.getAuthJson()).toEqual({ accessToken: null, refreshToken: null });
    // Signing out of a session the server already ended is not an error.
    await expect(apps.client({ tokenStore: { ...store } }).signOut()).resolves.toBeUndefined();
  });
});

describe("anonymous users", () => {
  it("count as signed out unless asked for, and upgrade in place", async () => {
    const app = apps.client();
    expect(await app.getUser()).toBeNull();
    const anonymous = await app.getUser({ or: "anonymous" });
    expect(anonymous.isAnonymous).toBe(true);
    expect(await app.getUser()).toBeNull();
    expect((await app.getUser({ or: "anonymous" })).id).toBe(anonymous.id);

    expect((await app.signUpWithCredential({ email: uniqueEmail(), password: PASSWORD })).status).toBe("ok");
    const upgraded = await app.getUser({ or: "throw" });
    expect(upgraded.id).toBe(anonymous.id);
    expect(upgraded.isAnonymous).toBe(false);
  });
});

describe("magic link and password reset", () => {
  it("signs in with the emailed code, which works once", async () => {
    const app = apps.client();
    const email = uniqueEmail("otp");
    const sent = await app.sendMagicLinkEmail(email, { callbackUrl: CALLBACK });
    expect(sent.status === "ok" && sent.data.nonce).toHaveLength(39);
    const code = await gh.latestEmailCode(app.projectId, email);
    expect((await app.signInWithMagicLink(code)).status).toBe("ok");
    expect((await app.getUser())?.primaryEmail).toBe(email);
    const again = await apps.client().signInWithMagicLink(code);
    expect(again.status === "error" && again.error.code).toBe("VERIFICATION_CODE_ALREADY_USED");
  });

  it("resets a forgotten password with the emailed code", async () => {
    const email = uniqueEmail("reset");
    await apps.client().signUpWithCredential({ email, password: PASSWORD });
    const app = apps.client();
    expect((await app.sendForgotPasswordEmail(email, { callbackUrl: CALLBACK })).status).toBe("ok");
    const code = await gh.latestEmailCode(app.projectId, email);
    expect((await app.verifyPasswordResetCode(code)).status).toBe("ok");
    expect((await app.resetPassword({ code, password: "a brand new password" })).status).toBe("ok");
    expect((await app.signInWithCredential({ email, password: "a brand new password" })).status).toBe("ok");
    const bogus = await app.verifyPasswordResetCode("0".repeat(45));
    expect(bogus.status === "error" && bogus.error.code).toBe("VERIFICATION_CODE_NOT_FOUND");
  });
});

describe("redirects and MFA", () => {
  it("getUser({or: 'redirect'}) sends the user to sign-in and waits 2000 ms", async () => {
    const navigated: string[] = [];
    const sleeps: number[] = [];
    const app = apps.client({
      redirectMethod: { navigate: (to) => navigated.push(to) },
      runtime: { sleep: async (ms) => void sleeps.push(ms) },
    });
    await expect(app.getUser({ or: "redirect" })).rejects.toThrow(/not signed in/);
    expect(navigated).toEqual(["/handler/sign-in"]);
    expect(sleeps).toEqual([2000]);
  });

  async function totpUser() {
    const email = uniqueEmail("mfa");
    const setup = apps.client();
    await setup.signUpWithCredential({ email, password: PASSWORD });
    const secret = crypto.getRandomValues(new Uint8Array(20));
    await (await setup.getUser({ or: "throw" })).update({ totpMultiFactorSecret: secret });
    const navigated: string[] = [];
    const app = apps.client({
      redirectMethod: { navigate: (to) => navigated.push(to) },
      runtime: { sleep: async () => {} },
    });
    const result = await app.signInWithCredential({ email, password: PASSWORD });
    const attemptCode = result.status === "error" ? String(result.error.details?.attempt_code) : "";
    return { email, secret, app, result, navigated, attemptCode };
  }

  it("a TOTP user's sign-in sends them to the MFA page with an attempt code", async () => {
    const { result, navigated, attemptCode } = await totpUser();
    expect(result.status === "error" && result.error.code).toBe("MULTI_FACTOR_AUTHENTICATION_REQUIRED");
    expect(navigated).toEqual(["/handler/mfa"]);
    expect(attemptCode).toHaveLength(45);
  });

  it("signs in with the TOTP code and the attempt code", async () => {
    const { email, secret, app, attemptCode } = await totpUser();
    const result = await app.signInWithMfa(totpCode(secret), attemptCode, { noRedirect: true });
    expect(result.status).toBe("ok");
    expect((await app.getUser())?.primaryEmail).toBe(email);
  });
});

// Elsewhere, because they need a browser: OAuth sign-in and callback in browser/oauth.browser.test.ts; passkey
// registration and sign-in (WebAuthn) in e2e/passkey/passkey.test.ts, with Chromium's virtual authenticator.
// Connected accounts: connected-accounts.test.ts.
