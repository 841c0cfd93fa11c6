import { knownError, type WireSignInOrUpTokens, type WireSignInTokens } from "@gatehouse/shared";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import type { AppDeps } from "../../deps.ts";
import { wire } from "../../http/wire-schema.ts";
import { signInEvent } from "../activity/analytics.ts";
import type { ContactChannelRow } from "../contact-channels/schema.ts";
import type { UserRow } from "../users/schema.ts";
import { createVerificationCode } from "../verification-codes/service.ts";
import { issueTokens } from "./service.ts";

/** How long an MFA attempt code is good for (PROTOCOL.md §4.3). */
export const MFA_ATTEMPT_LIFETIME_MS = 5 * 60 * 1000;

/** The answer of the sign-in routes that never create the user. */
export const signInTokensSchema = wire<WireSignInTokens>()(
  z.object({ access_token: z.string(), refresh_token: z.string(), user_id: z.string() }),
);

/** The answer of the sign-in routes that may create the user. */
export const signInOrUpTokensSchema = wire<WireSignInOrUpTokens>()(
  z.object({
    access_token: z.string(),
    refresh_token: z.string(),
    is_new_user: z.boolean(),
    user_id: z.string(),
  }),
);

export type SignInResult = {
  access_token: string;
  refresh_token: string;
  user_id: string;
  is_new_user: boolean;
};

/**
 * The last step of every first-factor sign-in (password, email code, OAuth, passkey). A user with TOTP turned on
 * gets MULTI_FACTOR_AUTHENTICATION_REQUIRED with an attempt code instead of tokens; `POST /auth/mfa/sign-in`
 * finishes from there.
 */
export async function completeSignIn(
  deps: AppDeps,
  input: {
    projectId: string;
    config: RenderedConfig;
    user: UserRow;
    /** The user's primary email channel, when the caller has it (saves the token a read). */
    primaryChannel?: ContactChannelRow | undefined;
    isNewUser: boolean;
    ip: string | null;
    /** The browser's `user-agent`, kept on the new session. */
    userAgent?: string | null;
    /** The caller's address is recorded as known already, and recently (rate-limit/password-checks.ts). */
    addressRecordedRecently?: boolean;
    /** Set by the MFA step itself, which has just checked the second factor. */
    secondFactorPassed?: boolean;
  },
): Promise<SignInResult> {
  if (input.user.totpSecretEncrypted && !input.secondFactorPassed) {
    const { code } = await createVerificationCode(deps.db, {
      projectId: input.projectId,
      purpose: "mfa_attempt",
      data: { user_id: input.user.id, is_new_user: input.isNewUser },
      lifetimeMs: MFA_ATTEMPT_LIFETIME_MS,
    });
    throw knownError("MULTI_FACTOR_AUTHENTICATION_REQUIRED", { attempt_code: code });
  }
  // The address is recorded only once the whole sign-in passed, second factor included, whatever the first factor
  // was: from now on it neither fills nor waits for the account's password-failure ceiling
  // (rate-limit/password-checks.ts). With the session, in its statement.
  const tokens = await issueTokens(deps, input.projectId, input.user, input.config, {
    ip: input.ip,
    userAgent: input.userAgent ?? null,
    primaryChannel: input.primaryChannel,
    rememberAddress: !input.addressRecordedRecently,
  });
  deps.activity.record(
    signInEvent({ projectId: input.projectId, user: input.user, isNewUser: input.isNewUser, ip: input.ip }),
  );
  return { ...tokens, user_id: input.user.id, is_new_user: input.isNewUser };
}
