import { and, eq } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { StatusError } from "../../http/status-error.ts";
import { makePrimaryEmail } from "../contact-channels/store.ts";
import { grantDefaultTeamPermissions } from "../permissions/service.ts";
import { createPersonalTeam } from "../teams/personal-team.ts";
import { type UserRow, users } from "./schema.ts";
import { recordUserEvent } from "./service.ts";

export type AnonymousUpgrade = {
  projectId: string;
  userId: string;
  config: RenderedConfig;
  /** The address the account gets as its primary email, or null for none. */
  email: string | null;
  /** Whether the sign-up proved the address (an email code does, a password sign-up does not). */
  emailVerified: boolean;
  /**
   * Whether the address signs in from now on (the default). An OAuth sign-up whose address must not sign in
   * (unverified, or another account's under allow_duplicates) keeps it as a contact address only.
   */
  emailUsedForAuth?: boolean;
  passwordHash?: string;
  otpAuthEnabled?: boolean;
  /** A provider's name and picture, used only where the anonymous user has set none. */
  profile?: { displayName: string | null; profileImageUrl: string | null };
};

/**
 * Turns an anonymous user into a full account in place, inside the caller's transaction: same id, so whatever the
 * app stored for them while anonymous stays theirs. The user gets what a sign-up would have given them: the email
 * as primary channel, and the personal team (with the creator's default permissions) when the project makes one
 * on sign-up. Every sign-up path (password, email code, OAuth) upgrades through here.
 *
 * The row is locked first, so of two parallel upgrades of one user the second finds it upgraded: a 409. Another
 * account taking the address for sign-in in the meantime surfaces as a unique violation, which the caller turns
 * into USER_EMAIL_ALREADY_EXISTS once the transaction has rolled back.
 */
export async function upgradeAnonymousUser(tx: Database, input: AnonymousUpgrade): Promise<UserRow> {
  const { projectId, userId, config } = input;
  const email = input.email === null ? null : normalizeEmail(input.email);
  const where = and(eq(users.projectId, projectId), eq(users.id, userId));
  const [locked] = await tx
    .select({
      isAnonymous: users.isAnonymous,
      displayName: users.displayName,
      profileImageUrl: users.profileImageUrl,
    })
    .from(users)
    .where(where)
    .for("update");
  if (!locked?.isAnonymous) {
    throw new StatusError(
      409,
      "This anonymous user has already been upgraded to a full account, or deleted.",
    );
  }

  if (email !== null) {
    const usedForAuth = input.emailUsedForAuth ?? true;
    // An anonymous user normally has no channel, but a server may have given them some: a channel with the same
    // address is promoted rather than duplicated, and keeps its verification unless this sign-up proved it.
    await makePrimaryEmail(tx, {
      projectId,
      userId,
      email,
      verified: input.emailVerified,
      usedForAuth,
      whenAlreadyPresent: {
        ...(usedForAuth ? { usedForAuth: true } : {}),
        markVerified: input.emailVerified,
      },
    });
  }

  const displayName = locked.displayName ?? input.profile?.displayName ?? null;
  const set: Partial<typeof users.$inferInsert> = {
    isAnonymous: false,
    displayName,
    profileImageUrl: locked.profileImageUrl ?? input.profile?.profileImageUrl ?? null,
  };
  if (input.passwordHash !== undefined) set.passwordHash = input.passwordHash;
  if (input.otpAuthEnabled) set.otpAuthEnabled = true;
  let [user] = await tx.update(users).set(set).where(where).returning();

  if (config.teams.createPersonalTeamOnSignUp) {
    const teamId = await createPersonalTeam(tx, projectId, userId, displayName, email);
    await grantDefaultTeamPermissions(tx, { projectId, teamId, userId, config, kind: "creator" });
    // A team the user picked while anonymous (a server may have added them to one) stays selected.
    if (user!.selectedTeamId === null) {
      [user] = await tx.update(users).set({ selectedTeamId: teamId }).where(where).returning();
    }
  }
  // The account is the same user, now with a way to sign in: an update, not a creation.
  await recordUserEvent(tx, "user.updated", projectId, user!, config);
  return user!;
}
