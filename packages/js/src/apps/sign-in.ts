import type { WireSessionTokens, WireSignInOrUpTokens } from "@gatehouse/shared";
import { isKnownError, type KnownError, type KnownErrorCode } from "@gatehouse/shared";
import type { Session } from "../session/session.ts";
import { Result } from "../utils/result.ts";
import type { AppContext } from "./context.ts";
import { afterAuthTarget, keepReturnTo } from "./redirect.ts";
import { absoluteUrl, currentOrigin } from "./urls.ts";

/** Where the MFA page finds the attempt code of a sign-in that needs a second factor. */
export const MFA_ATTEMPT_CODE_STORAGE_KEY = "stack_mfa_attempt_code";

/** Every sign-in answer carries the session's tokens; those that may create the user say whether they did. */
type SignInResponse = WireSessionTokens & Partial<Pick<WireSignInOrUpTokens, "is_new_user">>;

/**
 * Runs a call whose listed known errors are part of its contract: they come back as `Result.error`, anything
 * else is thrown.
 */
export async function expectErrors<T>(
  codes: readonly KnownErrorCode[],
  run: () => Promise<T>,
): Promise<Result<T, KnownError>> {
  try {
    return Result.ok(await run());
  } catch (error) {
    if (codes.some((code) => isKnownError(error, code))) return Result.error(error as KnownError);
    throw error;
  }
}

/** Stores the tokens of a sign-in, then (unless told not to) goes where the user wanted to go. */
export async function completeSignIn(
  ctx: AppContext,
  session: Session,
  response: SignInResponse,
  options: { noRedirect?: boolean | undefined; isNewUser?: boolean | undefined } = {},
): Promise<void> {
  session.setTokens({ accessToken: response.access_token, refreshToken: response.refresh_token });
  ctx.invalidateUserData();
  if (options.noRedirect) return;
  const isNewUser = options.isNewUser ?? response.is_new_user === true;
  await ctx.redirector.redirectTo(afterAuthTarget(isNewUser ? ctx.urls.afterSignUp : ctx.urls.afterSignIn));
}

/**
 * A sign-in that hit MULTI_FACTOR_AUTHENTICATION_REQUIRED: keep the attempt code for the MFA page (session
 * storage, this tab only) and send the user there. Returns whether the error was that one.
 */
export async function handleMfaRequired(ctx: AppContext, error: unknown): Promise<boolean> {
  if (!isKnownError(error, "MULTI_FACTOR_AUTHENTICATION_REQUIRED")) return false;
  const attemptCode = error.details?.attempt_code;
  if (typeof attemptCode === "string" && typeof sessionStorage !== "undefined") {
    sessionStorage.setItem(MFA_ATTEMPT_CODE_STORAGE_KEY, attemptCode);
  }
  await ctx.redirector.redirectTo(keepReturnTo(ctx.urls.mfa));
  return true;
}

/**
 * Signs in through `path` with `body`. Expected errors come back as Result errors; an MFA requirement sends the
 * user to the MFA page and comes back as the MULTI_FACTOR_AUTHENTICATION_REQUIRED error.
 */
export async function signInThrough(
  ctx: AppContext,
  path: string,
  body: unknown,
  expected: readonly KnownErrorCode[],
  options: { noRedirect?: boolean | undefined; isNewUser?: boolean } = {},
): Promise<Result<undefined, KnownError>> {
  const session = ctx.persistentSession();
  try {
    const response = await ctx.call<SignInResponse>(path, { method: "POST", body, session });
    await completeSignIn(ctx, session, response, options);
    return Result.ok(undefined);
  } catch (error) {
    if (await handleMfaRequired(ctx, error)) return Result.error(error as KnownError);
    if (expected.some((code) => isKnownError(error, code))) return Result.error(error as KnownError);
    throw error;
  }
}

/** A callback URL for an email link: the caller's, or the app's handler page on this site. */
export function callbackUrl(given: string | undefined, fallback: string, what: string): string {
  return absoluteUrl(given ?? fallback, currentOrigin(), what);
}

export function signUpWithCredential(
  ctx: AppContext,
  options: {
    email: string;
    password: string;
    noRedirect?: boolean;
    noVerificationCallback?: boolean;
    verificationCallbackUrl?: string;
  },
) {
  let verificationCallback: string | undefined;
  if (!options.noVerificationCallback) {
    try {
      verificationCallback = callbackUrl(
        options.verificationCallbackUrl,
        ctx.urls.emailVerification,
        "verificationCallbackUrl",
      );
    } catch (error) {
      // Outside a browser the handler page has no origin; without an explicit URL, no verification email.
      if (options.verificationCallbackUrl !== undefined) throw error;
    }
  }
  return signInThrough(
    ctx,
    "/auth/password/sign-up",
    {
      email: options.email,
      password: options.password,
      ...(verificationCallback ? { verification_callback_url: verificationCallback } : {}),
    },
    ["USER_EMAIL_ALREADY_EXISTS", "PASSWORD_REQUIREMENTS_NOT_MET", "BOT_CHALLENGE_FAILED"],
    { noRedirect: options.noRedirect, isNewUser: true },
  );
}

export function signInWithCredential(
  ctx: AppContext,
  options: { email: string; password: string; noRedirect?: boolean },
) {
  return signInThrough(
    ctx,
    "/auth/password/sign-in",
    { email: options.email, password: options.password },
    ["EMAIL_PASSWORD_MISMATCH", "INVALID_TOTP_CODE"],
    { noRedirect: options.noRedirect, isNewUser: false },
  );
}

export function sendMagicLinkEmail(ctx: AppContext, email: string, options: { callbackUrl?: string } = {}) {
  const callback = callbackUrl(
    options.callbackUrl,
    ctx.urls.magicLinkCallback,
    "The magic link callback URL",
  );
  return expectErrors(["REDIRECT_URL_NOT_WHITELISTED", "BOT_CHALLENGE_FAILED"], async () => {
    const result = await ctx.call<{ nonce: string }>("/auth/otp/send-sign-in-code", {
      method: "POST",
      body: { email, callback_url: callback },
      accessType: "client",
    });
    return { nonce: result.nonce };
  });
}

export function signInWithMagicLink(ctx: AppContext, code: string, options: { noRedirect?: boolean } = {}) {
  return signInThrough(ctx, "/auth/otp/sign-in", { code }, ["VERIFICATION_ERROR", "INVALID_TOTP_CODE"], {
    noRedirect: options.noRedirect,
  });
}

export function signInWithMfa(
  ctx: AppContext,
  totp: string,
  code: string,
  options: { noRedirect?: boolean } = {},
) {
  return signInThrough(
    ctx,
    "/auth/mfa/sign-in",
    { type: "totp", totp, code },
    ["VERIFICATION_ERROR", "INVALID_TOTP_CODE"],
    { noRedirect: options.noRedirect },
  );
}

/** `POST /auth/anonymous/sign-up`: a fresh anonymous user, signed in on the app's store. */
export async function signUpAnonymously(ctx: AppContext): Promise<void> {
  const session = ctx.persistentSession();
  const response = await ctx.call<SignInResponse>("/auth/anonymous/sign-up", {
    method: "POST",
    session,
    accessType: "client",
  });
  await completeSignIn(ctx, session, response, { noRedirect: true });
}

export function sendForgotPasswordEmail(
  ctx: AppContext,
  email: string,
  options: { callbackUrl?: string } = {},
) {
  const callback = callbackUrl(
    options.callbackUrl,
    ctx.urls.passwordReset,
    "The password reset callback URL",
  );
  return expectErrors(["USER_NOT_FOUND"], async () => {
    await ctx.call("/auth/password/send-reset-code", {
      method: "POST",
      body: { email, callback_url: callback },
      accessType: "client",
    });
    return undefined;
  });
}

/** A code-taking call (`{code, ...}`) whose verification errors are results, not exceptions. */
export function codeCall<T = undefined, J = unknown>(
  ctx: AppContext,
  path: string,
  body: Record<string, unknown>,
  options: { session?: Session | null; map?: (json: J) => T; extra?: readonly KnownErrorCode[] } = {},
) {
  return expectErrors<T>(["VERIFICATION_ERROR", ...(options.extra ?? [])], async () => {
    const json = await ctx.call<J>(path, {
      method: "POST",
      body,
      accessType: "client",
      session: options.session ?? null,
    });
    return options.map ? options.map(json) : (undefined as T);
  });
}
