import { and, eq } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { StatusError } from "../../http/status-error.ts";
import { makePrimaryEmail } from "../contact-channels/store.ts";
import { grantDefaultTeamPermissions } from "../permissions/service.ts";
import { createPersonalTeam, isInAnyTeam, renameAnonymousPersonalTeams } from "../teams/personal-team.ts";
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
  /**
   * What the project's sign-up rules said (features/sign-up-rules `checkSignUpRules`): the country and risk scores
   * to store, and the note of a `restrict` rule, appended to the user's private restriction details.
   */
  signUpRules?: { countryCode: string | null; riskScores: unknown; restrictionDetails: string | null };
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
      restrictedByAdminPrivateDetails: users.restrictedByAdminPrivateDetails,
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

  // An empty name is no name (PROTOCOL.md §3.2 reads "" as null), so a provider's "" never lands in the row.
  const displayName = locked.displayName || input.profile?.displayName || null;
  const set: Partial<typeof users.$inferInsert> = {
    isAnonymous: false,
    displayName,
    profileImageUrl: locked.profileImageUrl ?? input.profile?.profileImageUrl ?? null,
  };
  if (input.passwordHash !== undefined) set.passwordHash = input.passwordHash;
  if (input.otpAuthEnabled) set.otpAuthEnabled = true;
  if (input.signUpRules) {
    const { countryCode, riskScores, restrictionDetails } = input.signUpRules;
    set.riskScores = riskScores;
    if (countryCode !== null) set.countryCode = countryCode;
    if (restrictionDetails !== null) {
      const existing = locked.restrictedByAdminPrivateDetails;
      set.restrictedByAdmin = true;
      set.restrictedByAdminPrivateDetails = existing
        ? `${existing}\n\n${restrictionDetails}`
        : restrictionDetails;
    }
  }
  let [user] = await tx.update(users).set(set).where(where).returning();

  user = await settlePersonalTeamOnUpgrade(tx, { projectId, config, user: user!, email });
  // The account is the same user, now with a way to sign in: an update, not a creation.
  await recordUserEvent(tx, "user.updated", projectId, user!, config);
  return user!;
}

/**
 * Gives a user who just stopped being anonymous (by a sign-up, or a server setting `is_anonymous: false`) the
 * personal team a sign-up would have given, when the project makes one: the team they got while anonymous (still
 * called "Personal Team") is renamed after the account, as the reference platform does; a user with no team at all
 * (anonymous from before the project turned personal teams on) gets a new one with the creator's default
 * permissions, selected unless they already picked a team. A user who kept other teams but renamed or left their
 * anonymous one gets nothing new, as on the reference platform. Returns the user row as it now is.
 */
export async function settlePersonalTeamOnUpgrade(
  tx: Database,
  input: { projectId: string; config: RenderedConfig; user: UserRow; email: string | null },
): Promise<UserRow> {
  const { projectId, config, user, email } = input;
  if (!config.teams.createPersonalTeamOnSignUp) return user;
  const renamed = await renameAnonymousPersonalTeams(tx, projectId, user.id, user.displayName, email);
  if (renamed.length > 0 || (await isInAnyTeam(tx, projectId, user.id))) return user;
  const teamId = await createPersonalTeam(tx, projectId, user.id, user.displayName, email);
  await grantDefaultTeamPermissions(tx, { projectId, teamId, userId: user.id, config, kind: "creator" });
  if (user.selectedTeamId !== null) return user;
  const [selected] = await tx
    .update(users)
    .set({ selectedTeamId: teamId })
    .where(and(eq(users.projectId, projectId), eq(users.id, user.id)))
    .returning();
  return selected!;
}
