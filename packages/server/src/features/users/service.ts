import { knownError } from "@gatehouse/shared";
import { and, eq } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { randomUuid } from "../../crypto/index.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/index.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { isUuid } from "../../fields/ids.ts";
import { type ContactChannelRow, contactChannels } from "../contact-channels/schema.ts";
import { insertPrimaryEmail } from "../contact-channels/store.ts";
import type { FeatureHooks } from "../hooks.ts";
import { createPersonalTeam } from "../teams/personal-team.ts";
import { type UserRow, users } from "./schema.ts";

export async function findUser(db: Database, projectId: string, userId: string): Promise<UserRow | null> {
  if (!isUuid(userId)) return null;
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.projectId, projectId), eq(users.id, userId)))
    .limit(1);
  return row ?? null;
}

/** The user who can sign in with this email (a contact channel used for auth), with that channel. */
export async function findUserByAuthEmail(
  db: Database,
  projectId: string,
  email: string,
): Promise<{ user: UserRow; channel: ContactChannelRow } | null> {
  const [row] = await db
    .select({ user: users, channel: contactChannels })
    .from(contactChannels)
    .innerJoin(users, eq(users.id, contactChannels.userId))
    .where(
      and(
        eq(contactChannels.projectId, projectId),
        eq(contactChannels.type, "email"),
        eq(contactChannels.value, normalizeEmail(email)),
        eq(contactChannels.usedForAuth, true),
      ),
    )
    .limit(1);
  return row ?? null;
}

export async function findPrimaryChannel(db: Database, projectId: string, userId: string) {
  const [row] = await db
    .select()
    .from(contactChannels)
    .where(
      and(
        eq(contactChannels.projectId, projectId),
        eq(contactChannels.userId, userId),
        eq(contactChannels.isPrimary, true),
      ),
    )
    .limit(1);
  return row ?? null;
}

export type NewUser = {
  id?: string;
  primaryEmail?: string | null;
  primaryEmailVerified?: boolean;
  primaryEmailAuthEnabled?: boolean;
  passwordHash?: string | null;
  displayName?: string | null;
  profileImageUrl?: string | null;
  clientMetadata?: unknown;
  clientReadOnlyMetadata?: unknown;
  serverMetadata?: unknown;
  isAnonymous?: boolean;
  otpAuthEnabled?: boolean;
  passkeyAuthEnabled?: boolean;
  totpSecretEncrypted?: string | null;
  restrictedByAdmin?: boolean;
  restrictedByAdminReason?: string | null;
  restrictedByAdminPrivateDetails?: string | null;
  countryCode?: string | null;
  riskScores?: unknown;
};

function emailTaken(email: string, wouldWorkIfVerified: boolean) {
  return knownError("USER_EMAIL_ALREADY_EXISTS", {
    email,
    would_work_if_email_was_verified: wouldWorkIfVerified,
  });
}

/**
 * Creates a user with their primary email channel and, when the project asks for it, a personal team, then runs
 * every feature's `userCreated` hook in the same transaction.
 * An email already used for sign-in by someone else is USER_EMAIL_ALREADY_EXISTS.
 */
export async function createUser(
  db: Database,
  projectId: string,
  config: RenderedConfig,
  input: NewUser,
  hooks: Pick<FeatureHooks, "userCreated">,
): Promise<UserRow> {
  const email = input.primaryEmail ? normalizeEmail(input.primaryEmail) : null;
  const authEnabled = input.primaryEmailAuthEnabled ?? Boolean(email);
  if (email && authEnabled) {
    const existing = await findUserByAuthEmail(db, projectId, email);
    if (existing) throw emailTaken(email, !existing.channel.isVerified);
  }
  try {
    return await db.transaction(async (tx) => {
      const id = input.id ?? randomUuid();
      const [user] = await tx
        .insert(users)
        .values({
          projectId,
          id,
          displayName: input.displayName ?? null,
          profileImageUrl: input.profileImageUrl ?? null,
          passwordHash: input.passwordHash ?? null,
          clientMetadata: input.clientMetadata ?? null,
          clientReadOnlyMetadata: input.clientReadOnlyMetadata ?? null,
          serverMetadata: input.serverMetadata ?? null,
          isAnonymous: input.isAnonymous ?? false,
          otpAuthEnabled: input.otpAuthEnabled ?? false,
          passkeyAuthEnabled: input.passkeyAuthEnabled ?? false,
          totpSecretEncrypted: input.totpSecretEncrypted ?? null,
          restrictedByAdmin: input.restrictedByAdmin ?? false,
          restrictedByAdminReason: input.restrictedByAdminReason ?? null,
          restrictedByAdminPrivateDetails: input.restrictedByAdminPrivateDetails ?? null,
          countryCode: input.countryCode ?? null,
          ...(input.riskScores ? { riskScores: input.riskScores } : {}),
        })
        .returning();
      if (email) {
        await insertPrimaryEmail(tx as Database, {
          projectId,
          userId: id,
          email,
          verified: input.primaryEmailVerified ?? false,
          usedForAuth: authEnabled,
        });
      }
      let personalTeamId: string | null = null;
      if (config.teams.createPersonalTeamOnSignUp && !input.isAnonymous) {
        personalTeamId = await createPersonalTeam(tx as Database, projectId, id, input.displayName, email);
        await tx
          .update(users)
          .set({ selectedTeamId: personalTeamId })
          .where(and(eq(users.projectId, projectId), eq(users.id, id)));
      }
      const created = { ...user!, selectedTeamId: personalTeamId };
      for (const hook of hooks.userCreated)
        await hook(tx as Database, { projectId, user: created, config, personalTeamId });
      return created;
    });
  } catch (error) {
    // Two sign-ups with one email at the same moment: the unique index lets only one through.
    if (email && isUniqueViolation(error)) throw emailTaken(email, false);
    throw error;
  }
}

export async function deleteUser(db: Database, projectId: string, userId: string): Promise<void> {
  // Sessions, contact channels, memberships and everything else of the user cascade from this row.
  await db.delete(users).where(and(eq(users.projectId, projectId), eq(users.id, userId)));
}
