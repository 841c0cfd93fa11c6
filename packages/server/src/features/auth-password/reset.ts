import { knownError } from "@gatehouse/shared";
import { and, eq } from "drizzle-orm";
import { withCode } from "../../config/trusted-urls.ts";
import { hashPassword } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { sendBuiltInEmail } from "../emails/built-in.ts";
import type { ProjectRow } from "../projects/schema.ts";
import { sessions } from "../sessions/schema.ts";
import { users } from "../users/schema.ts";
import { findUserByAuthEmail } from "../users/service.ts";
import {
  consumeVerificationCode,
  createVerificationCode,
  revokeCodes,
} from "../verification-codes/service.ts";

/** What a reset code stands for; the same shape as email verification codes. */
type ResetCodeData = { user_id: string; email: string };

/**
 * Emails a reset link to whoever can sign in with `email`, with or without a password yet (proving the mailbox is
 * enough to set one). Says nothing about whether anyone did: the caller answers the same either way.
 */
export async function sendPasswordResetCode(
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
    const [channel] = await tx
      .update(contactChannels)
      .set({ isVerified: true })
      .where(
        and(
          eq(contactChannels.projectId, projectId),
          eq(contactChannels.userId, data.user_id),
          eq(contactChannels.type, "email"),
          eq(contactChannels.value, data.email),
        ),
      )
      .returning({ id: contactChannels.id });
    if (!channel) throw knownError("EMAIL_NOT_ASSOCIATED_WITH_USER");
    await tx
      .update(users)
      .set({ passwordHash })
      .where(and(eq(users.projectId, projectId), eq(users.id, data.user_id)));
    await tx
      .delete(sessions)
      .where(and(eq(sessions.projectId, projectId), eq(sessions.userId, data.user_id)));
  });
  // Other reset links sent before this one must not work after it.
  await revokeCodes(deps.db, projectId, "password_reset", "user_id", data.user_id);
}
