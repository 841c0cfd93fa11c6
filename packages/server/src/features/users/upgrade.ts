import { and, eq } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { StatusError } from "../../http/status-error.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { grantDefaultTeamPermissions } from "../permissions/service.ts";
import { type UserRow, users } from "./schema.ts";
import { createPersonalTeam } from "./service.ts";

export type AnonymousUpgrade = {
  projectId: string;
  userId: string;
  config: RenderedConfig;
  /** The address the account signs in with from now on; it becomes the primary email. */
  email: string;
  /** Whether the sign-up proved the address (an email code does, a password sign-up does not). */
  emailVerified: boolean;
  passwordHash?: string;
  otpAuthEnabled?: boolean;
};

/**
 * Turns an anonymous user into a full account in place, inside the caller's transaction: same id, so whatever the
 * app stored for them while anonymous stays theirs. The user gets what a sign-up would have given them: the email
 * as primary sign-in channel, and the personal team (with the creator's default permissions) when the project
 * makes one on sign-up.
 *
 * The row is locked first, so of two parallel upgrades of one user the second finds it upgraded: a 409. Another
 * account taking the address for sign-in in the meantime surfaces as a unique violation, which the caller turns
 * into USER_EMAIL_ALREADY_EXISTS once the transaction has rolled back.
 */
export async function upgradeAnonymousUser(tx: Database, input: AnonymousUpgrade): Promise<UserRow> {
  const { projectId, userId, config } = input;
  const email = normalizeEmail(input.email);
  const where = and(eq(users.projectId, projectId), eq(users.id, userId));
  const [locked] = await tx
    .select({ isAnonymous: users.isAnonymous, displayName: users.displayName })
    .from(users)
    .where(where)
    .for("update");
  if (!locked?.isAnonymous) {
    throw new StatusError(
      409,
      "This anonymous user has already been upgraded to a full account, or deleted.",
    );
  }

  await setAuthEmail(tx, projectId, userId, email, input.emailVerified);

  const set: Partial<typeof users.$inferInsert> = { isAnonymous: false };
  if (input.passwordHash !== undefined) set.passwordHash = input.passwordHash;
  if (input.otpAuthEnabled) set.otpAuthEnabled = true;
  let [user] = await tx.update(users).set(set).where(where).returning();

  if (config.teams.createPersonalTeamOnSignUp) {
    const teamId = await createPersonalTeam(tx, projectId, userId, locked.displayName, email);
    await grantDefaultTeamPermissions(tx, { projectId, teamId, userId, config, kind: "creator" });
    // A team the user picked while anonymous (a server may have added them to one) stays selected.
    if (user!.selectedTeamId === null) {
      [user] = await tx.update(users).set({ selectedTeamId: teamId }).where(where).returning();
    }
  }
  return user!;
}

/**
 * Makes `email` the user's primary channel, used for sign-in. An anonymous user normally has no channel at all,
 * but a server may have given them some: a channel with the same address is promoted (keeping its verification
 * unless this sign-up proved the address) rather than duplicated.
 */
async function setAuthEmail(
  tx: Database,
  projectId: string,
  userId: string,
  email: string,
  verified: boolean,
): Promise<void> {
  // Unset first, in its own statement: the one-primary index is checked row by row.
  await tx
    .update(contactChannels)
    .set({ isPrimary: false })
    .where(
      and(
        eq(contactChannels.projectId, projectId),
        eq(contactChannels.userId, userId),
        eq(contactChannels.isPrimary, true),
      ),
    );
  const promoted = { isPrimary: true, usedForAuth: true, ...(verified ? { isVerified: true } : {}) };
  await tx
    .insert(contactChannels)
    .values({
      projectId,
      id: randomUuid(),
      userId,
      type: "email",
      value: email,
      isVerified: verified,
      isPrimary: true,
      usedForAuth: true,
    })
    .onConflictDoUpdate({
      target: [contactChannels.userId, contactChannels.type, contactChannels.value],
      set: promoted,
    });
}
