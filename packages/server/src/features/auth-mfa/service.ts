import { knownError } from "@gatehouse/shared";
import { sql } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { completeSignIn, type SignInResult } from "../sessions/sign-in.ts";
import { findUser } from "../users/service.ts";
import { decryptTotpSecret } from "../users/totp.ts";
import { consumeVerificationCode } from "../verification-codes/service.ts";
import { mfaTotpUsage } from "./schema.ts";

/** RFC 6238 with the parameters every authenticator app defaults to (PROTOCOL.md §4.5). */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** One step either side forgives a phone clock that is up to 30 s off, or a code typed as it rolled over. */
const TOTP_WINDOW = 1;

/** The time step a code of `secret` was made for, within the window around now; null for a wrong code. */
export function matchTotpStep(secret: Uint8Array, token: string, now = Date.now()): number | null {
  if (!/^[0-9]{6}$/.test(token)) return null;
  const options = {
    secret: new Secret({ buffer: secret.slice().buffer }),
    algorithm: "SHA1",
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  };
  const delta = TOTP.validate({ ...options, token, timestamp: now, window: TOTP_WINDOW });
  if (delta === null) return null;
  return TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: now }) + delta;
}

/**
 * Records `step` as the user's newest used step, unless that step or a later one was already used. One statement,
 * so of two parallel sign-ins with the same code exactly one gets true.
 */
async function claimTotpStep(
  db: Database,
  projectId: string,
  userId: string,
  step: number,
): Promise<boolean> {
  const claimed = await db
    .insert(mfaTotpUsage)
    .values({ projectId, userId, lastStep: step })
    .onConflictDoUpdate({
      target: [mfaTotpUsage.projectId, mfaTotpUsage.userId],
      set: { lastStep: step, updatedAt: sql`now()` },
      setWhere: sql`${mfaTotpUsage.lastStep} < ${step}`,
    })
    .returning({ lastStep: mfaTotpUsage.lastStep });
  return claimed.length === 1;
}

/**
 * `POST /auth/mfa/sign-in`: the second step of a sign-in that answered MULTI_FACTOR_AUTHENTICATION_REQUIRED.
 * The attempt code is only looked at (which counts an attempt) until the TOTP code is right, so a typo does not
 * send the user back to the first factor; it is used up on success.
 */
export async function signInWithTotp(
  deps: AppDeps,
  auth: RequestAuth,
  input: { attemptCode: string; totp: string; ip: string | null; userAgent?: string | null },
): Promise<SignInResult> {
  const projectId = auth.project.id;
  const limits = rateLimitScope(deps, auth, input.ip);
  await consumeRateLimit(limits, RATE_LIMITS.codeCheckPerIp, input.ip);
  const attempt = await consumeVerificationCode(deps.db, {
    projectId,
    purpose: "mfa_attempt",
    code: input.attemptCode,
    peek: true,
  });
  const data = attempt.data as { user_id?: unknown; is_new_user?: unknown };
  const user = typeof data.user_id === "string" ? await findUser(deps.db, projectId, data.user_id) : null;
  // The user was deleted since the first factor: the code stands for nothing any more.
  if (!user) throw knownError("VERIFICATION_CODE_NOT_FOUND");
  // Per account too (RATE_LIMITS.mfaPerUser says why).
  await consumeRateLimit(limits, RATE_LIMITS.mfaPerUser, user.id);

  // MFA may have been turned off since the first factor; with no secret the code cannot be checked, so refuse it
  // rather than let any six digits through. A fresh sign-in no longer asks for it.
  if (!user.totpSecretEncrypted) throw knownError("INVALID_TOTP_CODE");
  const step = matchTotpStep(decryptTotpSecret(deps.env, user.totpSecretEncrypted), input.totp);
  if (step === null) throw knownError("INVALID_TOTP_CODE");
  if (!(await claimTotpStep(deps.db, projectId, user.id, step))) throw knownError("INVALID_TOTP_CODE");

  await consumeVerificationCode(deps.db, { projectId, purpose: "mfa_attempt", code: input.attemptCode });
  return completeSignIn(deps, {
    projectId,
    config: auth.config,
    user,
    isNewUser: data.is_new_user === true,
    ip: input.ip,
    userAgent: input.userAgent,
    secondFactorPassed: true,
  });
}
