import { knownError } from "@gatehouse/shared";
import type { RenderedConfig } from "../../config/index.ts";
import { assertTrustedCallbackUrl, withCode } from "../../config/trusted-urls.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import { normalizeEmail } from "../../fields/email.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { StatusError } from "../../http/status-error.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { sendBuiltInEmail } from "../emails/built-in.ts";
import { completeSignIn, type SignInResult } from "../sessions/sign-in.ts";
import { checkSignUpRules, type SignUpRulesVerdict, signUpUserFields } from "../sign-up-rules/apply.ts";
import type { UserRow } from "../users/schema.ts";
import { createUser, findUserByAuthEmail } from "../users/service.ts";
import { enableSignInMethod } from "../users/store.ts";
import { upgradeAnonymousUser } from "../users/upgrade.ts";
import {
  consumeVerificationCode,
  createVerificationCode,
  OTP_LENGTH,
} from "../verification-codes/service.ts";

function assertOtpEnabled(config: RenderedConfig): void {
  // A plain-text 403, not a known error: that is what the protocol answers (PROTOCOL.md §4.2).
  if (!config.auth.otp.allowSignIn) throw new StatusError(403, "OTP sign-in is not enabled for this project");
}

/**
 * Who an email code for this address signs in: the account that signs in with it, or null for a new account.
 * An account whose address was never verified is refused: the code would prove the address, but the account
 * may have been registered by someone else with it, so we do not hand that account over.
 */
async function accountForEmail(db: Database, auth: RequestAuth, email: string): Promise<UserRow | null> {
  const existing = await findUserByAuthEmail(db, auth.project.id, email);
  if (existing) {
    if (!existing.channel.isVerified) {
      throw knownError("USER_EMAIL_ALREADY_EXISTS", {
        email: existing.channel.value,
        would_work_if_email_was_verified: true,
      });
    }
    return existing.user;
  }
  if (!auth.config.auth.allowSignUp) throw knownError("SIGN_UP_NOT_ENABLED");
  return null;
}

/** `POST /auth/otp/send-sign-in-code`: emails a magic link and its 6-character code; returns the nonce. */
export async function sendSignInCode(
  deps: AppDeps,
  auth: RequestAuth,
  input: { email: string; callbackUrl: string; ip: string | null },
): Promise<{ nonce: string }> {
  assertOtpEnabled(auth.config);
  assertTrustedCallbackUrl(auth.config, input.callbackUrl);
  const projectId = auth.project.id;
  const email = normalizeEmail(input.email);
  const limits = rateLimitScope(deps, auth, input.ip);
  await consumeRateLimit(limits, RATE_LIMITS.emailPerIp, input.ip);
  await consumeRateLimit(limits, RATE_LIMITS.emailPerRecipient, email);
  const user = await accountForEmail(deps.db, auth, email);
  const { code } = await createVerificationCode(deps.db, {
    projectId,
    purpose: "otp_sign_in",
    data: { email, user_id: user?.id ?? null },
  });
  await sendBuiltInEmail(deps, auth.project, {
    kind: "magic_link",
    config: auth.config,
    to: email,
    userId: user?.id ?? null,
    variables: { link: withCode(input.callbackUrl, code), otp: code.slice(0, OTP_LENGTH) },
  });
  return { nonce: code.slice(OTP_LENGTH) };
}

/** `POST /auth/otp/sign-in[/check-code]`: checks the code, and unless peeking signs in or signs up. */
export async function signInWithCode(
  deps: AppDeps,
  auth: RequestAuth,
  input: { code: string; ip: string | null; userAgent?: string | null; peek: boolean },
): Promise<SignInResult | null> {
  assertOtpEnabled(auth.config);
  const projectId = auth.project.id;
  await consumeRateLimit(rateLimitScope(deps, auth, input.ip), RATE_LIMITS.codeCheckPerIp, input.ip);
  const row = await consumeVerificationCode(deps.db, {
    projectId,
    purpose: "otp_sign_in",
    code: input.code,
    peek: input.peek,
  });
  if (input.peek) return null;
  const email = (row.data as { email?: unknown }).email;
  if (typeof email !== "string") throw knownError("VERIFICATION_CODE_NOT_FOUND");

  // Decided now rather than when the code was sent: accounts and settings may have changed in between.
  const existing = await accountForEmail(deps.db, auth, email);
  let user: UserRow;
  let isNewUser = false;
  if (existing) {
    user = existing.otpAuthEnabled ? existing : await enableOtp(deps.db, projectId, existing.id);
  } else {
    // A new account: the project's sign-up rules have their say before anything is written.
    const anonymousUser = auth.user?.isAnonymous ? auth.user : null;
    const verdict = checkSignUpRules(deps, {
      projectId,
      config: auth.config,
      email,
      authMethod: "otp",
      ip: input.ip,
      anonymousUser,
    });
    user = anonymousUser
      ? await upgradeWithCode(deps.db, auth, anonymousUser.id, email, verdict)
      : await createUser(
          deps.db,
          projectId,
          auth.config,
          {
            primaryEmail: email,
            primaryEmailVerified: true,
            primaryEmailAuthEnabled: true,
            otpAuthEnabled: true,
            ...signUpUserFields(verdict),
          },
          deps.hooks,
        );
    isNewUser = true;
  }
  return completeSignIn(deps, {
    projectId,
    config: auth.config,
    user,
    isNewUser,
    ip: input.ip,
    userAgent: input.userAgent,
  });
}

/** Signing in with an email code turns the method on for the account (PROTOCOL.md §4.2). */
async function enableOtp(db: Database, projectId: string, userId: string): Promise<UserRow> {
  const user = await enableSignInMethod(db, projectId, userId, "otp");
  if (!user) throw knownError("USER_NOT_FOUND");
  return user;
}

/** An anonymous user who proves an email with a code becomes a full account in place, signing in with codes. */
async function upgradeWithCode(
  db: Database,
  auth: RequestAuth,
  userId: string,
  email: string,
  verdict: SignUpRulesVerdict,
): Promise<UserRow> {
  try {
    return await db.transaction((tx) =>
      upgradeAnonymousUser(tx as Database, {
        projectId: auth.project.id,
        userId,
        config: auth.config,
        email,
        emailVerified: true,
        otpAuthEnabled: true,
        signUpRules: verdict,
      }),
    );
  } catch (error) {
    // Another account took the address for sign-in between our check and this write.
    if (isUniqueViolation(error)) {
      throw knownError("USER_EMAIL_ALREADY_EXISTS", { email, would_work_if_email_was_verified: false });
    }
    throw error;
  }
}
