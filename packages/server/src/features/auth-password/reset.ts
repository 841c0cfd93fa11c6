import { knownError } from "@gatehouse/shared";
import { withCode } from "../../config/trusted-urls.ts";
import { hashPassword } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { markEmailVerified } from "../contact-channels/store.ts";
import { runAfterAnswer } from "../emails/after-answer.ts";
import { sendBuiltInEmail } from "../emails/built-in.ts";
import type { ProjectRow } from "../projects/schema.ts";
import { deleteOtherSessions } from "../sessions/service.ts";
import { findUserByAuthEmail } from "../users/service.ts";
import { storePasswordHash } from "../users/store.ts";
import {
  consumeVerificationCode,
  createVerificationCode,
  revokeCodes,
} from "../verification-codes/service.ts";

/** What a reset code stands for; the same shape as email verification codes. */
type ResetCodeData = { user_id: string; email: string };

/**
 * Emails a reset link to whoever can sign in with `email`, with or without a password yet (proving the mailbox is
 * enough to set one). Says nothing about whether anyone did: the caller answers the same either way, and in the
 * same time, because everything that depends on the answer (the lookup included) runs after the request has
 * answered (emails/after-answer.ts). Before answering, both paths do exactly the same thing: hand the work over.
 */
export function sendPasswordResetCode(
  deps: AppDeps,
  project: Pick<ProjectRow, "id" | "displayName">,
  input: { email: string; callbackUrl: string },
): Promise<void> {
  runAfterAnswer(deps, "Sending a password reset email", () => mailResetLink(deps, project, input));
  return Promise.resolve();
}

async function mailResetLink(
  deps: AppDeps,
  project: Pick<ProjectRow, "id" | "displayName">,
  input: { email: string; callbackUrl: string },
): Promise<void> {
  const found = await findUserByAuthEmail(deps.db, project.id, input.email);
  if (!found) return;
  const data: ResetCodeData = { user_id: found.user.id, email: found.channel.value };
  const { code } = await createVerificationCode(deps.db, {
    projectId: project.id,
    purpose: "password_reset",
    data,
  });
  await sendBuiltInEmail(deps, project, {
    kind: "password_reset",
    to: found.channel.value,
    userId: found.user.id,
    variables: { link: withCode(input.callbackUrl, code) },
  });
}

/** Checks a reset code without using it up (it still counts as an attempt). */
export async function checkPasswordResetCode(deps: AppDeps, projectId: string, code: string): Promise<void> {
  await consumeVerificationCode(deps.db, { projectId, purpose: "password_reset", code, peek: true });
}

/**
 * Uses a reset code: the new password replaces the old one and every session of the user ends, since whoever held
 * the old password may hold one. Following the emailed link proved the mailbox, so the email becomes verified.
 */
export async function resetPassword(
  deps: AppDeps,
  projectId: string,
  input: { code: string; password: string },
): Promise<void> {
  const row = await consumeVerificationCode(deps.db, {
    projectId,
    purpose: "password_reset",
    code: input.code,
  });
  const data = row.data as ResetCodeData;
  const passwordHash = await hashPassword(input.password);
  await deps.db.transaction(async (tx) => {
    // The link was for this email on this account; if the email has moved on since, the link is worthless.
    const channelId = await markEmailVerified(tx, { projectId, userId: data.user_id, email: data.email });
    if (!channelId) throw knownError("EMAIL_NOT_ASSOCIATED_WITH_USER");
    await storePasswordHash(tx, projectId, data.user_id, passwordHash);
    await deleteOtherSessions(tx, projectId, data.user_id, null);
  });
  // Other reset links sent before this one must not work after it.
  await revokeCodes(deps.db, projectId, "password_reset", "user_id", data.user_id);
}
