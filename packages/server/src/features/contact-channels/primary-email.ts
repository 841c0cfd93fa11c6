import { knownError } from "@gatehouse/shared";
import { and, eq } from "drizzle-orm";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { normalizeEmail, PRIMARY_EMAIL_NEEDED } from "../../fields/email.ts";
import { StatusError } from "../../http/status-error.ts";
import { users } from "../users/schema.ts";
import { findUserByAuthEmail } from "../users/service.ts";
import { type ContactChannelRow, contactChannels } from "./schema.ts";
import { userChannelsWhere } from "./store.ts";

export type PrimaryEmailPatch = {
  /** A new primary email, or null to have none; undefined leaves it. */
  email?: string | null | undefined;
  verified?: boolean | undefined;
  authEnabled?: boolean | undefined;
};

export function emailTakenError(email: string) {
  return knownError("USER_EMAIL_ALREADY_EXISTS", { email, would_work_if_email_was_verified: false });
}

/**
 * Changes a user's primary email channel, inside the caller's transaction:
 * - a new address becomes a new primary channel, unverified; it is used for sign-in when asked, else like the old
 *   primary, else (a user who had no email) yes;
 * - an address the user already has as another channel is promoted, keeping its verification;
 * - the old primary channel is demoted, not deleted (it stays one of the user's contact channels);
 * - null demotes the primary channel, leaving the user without a primary email.
 * Then `verified` / `authEnabled` apply to the resulting primary channel. A channel used for sign-in must not be
 * another user's sign-in email: USER_EMAIL_ALREADY_EXISTS.
 */
export async function applyPrimaryEmailPatch(
  tx: Database,
  projectId: string,
  userId: string,
  patch: PrimaryEmailPatch,
): Promise<void> {
  if (patch.email === undefined && patch.verified === undefined && patch.authEnabled === undefined) return;
  // Lock the user first: two parallel moves of the primary would otherwise both read the old primary and the
  // second would trip over the one-primary index (a 409) instead of applying after the first.
  const [locked] = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.projectId, projectId), eq(users.id, userId)))
    .for("update");
  if (!locked) throw knownError("USER_NOT_FOUND");
  const channels = await tx
    .select()
    .from(contactChannels)
    .where(userChannelsWhere(projectId, userId, eq(contactChannels.type, "email")));
  const oldPrimary = channels.find((c) => c.isPrimary) ?? null;
  let primary: ContactChannelRow | null = oldPrimary;

  const email = patch.email == null ? patch.email : normalizeEmail(patch.email);
  if (email !== undefined && email !== (oldPrimary?.value ?? null)) {
    const existing = email === null ? null : (channels.find((c) => c.value === email) ?? null);
    const usedForAuth = patch.authEnabled ?? existing?.usedForAuth ?? oldPrimary?.usedForAuth ?? true;
    if (email !== null && usedForAuth) await ensureAuthEmailFree(tx, projectId, userId, email);
    // Demote first: a user has at most one primary channel (unique index).
    if (oldPrimary) {
      await tx.update(contactChannels).set({ isPrimary: false }).where(eq(contactChannels.id, oldPrimary.id));
    }
    if (email === null) {
      primary = null;
    } else if (existing) {
      const [promoted] = await tx
        .update(contactChannels)
        .set({ isPrimary: true, usedForAuth })
        .where(eq(contactChannels.id, existing.id))
        .returning();
      primary = promoted ?? null;
    } else {
      const [inserted] = await tx
        .insert(contactChannels)
        .values({
          projectId,
          id: randomUuid(),
          userId,
          type: "email",
          value: email,
          isVerified: false,
          isPrimary: true,
          usedForAuth,
        })
        .returning();
      primary = inserted ?? null;
    }
  }

  if (patch.verified === undefined && patch.authEnabled === undefined) return;
  if (!primary) {
    if (patch.verified || patch.authEnabled) {
      throw new StatusError(400, PRIMARY_EMAIL_NEEDED);
    }
    return;
  }
  if (patch.authEnabled && !primary.usedForAuth)
    await ensureAuthEmailFree(tx, projectId, userId, primary.value);
  await tx
    .update(contactChannels)
    .set({
      ...(patch.verified !== undefined ? { isVerified: patch.verified } : {}),
      ...(patch.authEnabled !== undefined ? { usedForAuth: patch.authEnabled } : {}),
    })
    .where(eq(contactChannels.id, primary.id));
}

async function ensureAuthEmailFree(tx: Database, projectId: string, userId: string, email: string) {
  const holder = await findUserByAuthEmail(tx, projectId, email);
  if (holder && holder.user.id !== userId) throw emailTakenError(email);
}
