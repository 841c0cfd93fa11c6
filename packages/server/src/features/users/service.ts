import { knownError } from "@gatehouse/shared";
import { and, eq, sql } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { randomUuid } from "../../crypto/index.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/index.ts";
import { preparedPerDatabase } from "../../db/prepared-sql.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { isUuid } from "../../fields/ids.ts";
import { type ContactChannelRow, contactChannels } from "../contact-channels/schema.ts";
import { insertPrimaryEmail, insertPrimaryEmails, userChannelsWhere } from "../contact-channels/store.ts";
import { recordEvents } from "../events/record.ts";
import type { FeatureHooks, RequestedProviderAccount } from "../hooks.ts";
import { createPersonalTeam } from "../teams/personal-team.ts";
import { teamMembers } from "../teams/schema.ts";
import { type UserRow, users } from "./schema.ts";
import { loadUserRelations } from "./user-with-relations.ts";
import { loadUserView, userView } from "./views.ts";

export async function findUser(db: Database, projectId: string, userId: string): Promise<UserRow | null> {
  if (!isUuid(userId)) return null;
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.projectId, projectId), eq(users.id, userId)))
    .limit(1);
  return row ?? null;
}

const userByAuthEmail = preparedPerDatabase((db: Database) =>
  db
    .select({ user: users, channel: contactChannels })
    .from(contactChannels)
    .innerJoin(users, eq(users.id, contactChannels.userId))
    .where(
      and(
        eq(contactChannels.projectId, sql.placeholder("projectId")),
        eq(contactChannels.type, "email"),
        eq(contactChannels.value, sql.placeholder("email")),
        eq(contactChannels.usedForAuth, true),
      ),
    )
    .limit(1)
    .prepare("user_by_auth_email"),
);

/** The user who can sign in with this email (a contact channel used for auth), with that channel. */
export async function findUserByAuthEmail(
  db: Database,
  projectId: string,
  email: string,
): Promise<{ user: UserRow; channel: ContactChannelRow } | null> {
  const [row] = await userByAuthEmail(db).execute({ projectId, email: normalizeEmail(email) });
  return row ?? null;
}

export async function findPrimaryChannel(db: Database, projectId: string, userId: string) {
  const [row] = await db
    .select()
    .from(contactChannels)
    .where(userChannelsWhere(projectId, userId, eq(contactChannels.isPrimary, true)))
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
  /** OAuth accounts to attach in the same transaction (the oauth feature's `userCreated` hook does). */
  oauthProviders?: readonly RequestedProviderAccount[];
  /**
   * False: no personal team whatever the config says. A server's `POST /users` is not a sign-up, and the reference
   * gives such users none (`selected_team: null`); every sign-up path leaves this unset.
   */
  personalTeam?: false;
};

/**
 * USER_EMAIL_ALREADY_EXISTS for an account the caller creates outright. `would_work_if_email_was_verified` is false:
 * as on the reference platform, only an email-code sign-in says true (verifying the address there would let the
 * code sign in), while no verification makes a second account with a taken sign-in email possible.
 */
function emailTaken(email: string) {
  return knownError("USER_EMAIL_ALREADY_EXISTS", { email, would_work_if_email_was_verified: false });
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
    if (existing) throw emailTaken(email);
  }
  try {
    return await db.transaction(async (tx) => {
      const id = input.id ?? randomUuid();
      const [user] = await tx
        .insert(users)
        .values(newUserRow(projectId, id, input))
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
      // Anonymous users get one too ("Personal Team"), renamed after the account when they sign up (upgrade.ts).
      if (config.teams.createPersonalTeamOnSignUp && input.personalTeam !== false) {
        personalTeamId = await createPersonalTeam(tx as Database, projectId, id, input.displayName, email);
        await tx
          .update(users)
          .set({ selectedTeamId: personalTeamId })
          .where(and(eq(users.projectId, projectId), eq(users.id, id)));
      }
      const created = { ...user!, selectedTeamId: personalTeamId };
      for (const hook of hooks.userCreated)
        await hook(tx as Database, {
          projectId,
          user: created,
          config,
          personalTeamId,
          oauthProviders: input.oauthProviders ?? [],
        });
      await recordUserEvent(tx as Database, "user.created", projectId, created, config);
      return created;
    });
  } catch (error) {
    // Two sign-ups with one email at the same moment: the unique index lets only one through.
    if (email && isUniqueViolation(error)) throw emailTaken(email);
    throw error;
  }
}

/** The users row of a new user (createUser, createUsers). */
function newUserRow(projectId: string, id: string, input: NewUser): typeof users.$inferInsert {
  return {
    projectId,
    id,
    // An empty name is stored as no name (PROTOCOL.md §3.2: display_name is a string or null), whatever the path.
    displayName: input.displayName || null,
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
  };
}

/**
 * Creates many users in a few statements, for imports: the rows `createUser` writes (user, primary email, the
 * features' hooks, `user.created`), one INSERT per table for the whole list. The caller has checked that the
 * sign-in emails are free and distinct (a conflict fails the whole call). Imported users, like those of a server's
 * `POST /users`, get no personal team.
 */
export async function createUsers(
  db: Database,
  projectId: string,
  config: RenderedConfig,
  inputs: readonly NewUser[],
  hooks: Pick<FeatureHooks, "userCreated">,
): Promise<UserRow[]> {
  if (inputs.length === 0) return [];
  return db.transaction(async (tx) => {
    const rows = inputs.map((input) => newUserRow(projectId, input.id ?? randomUuid(), input));
    const created = await tx.insert(users).values(rows).returning();
    const channels = inputs.flatMap((input, index) => {
      const email = input.primaryEmail ? normalizeEmail(input.primaryEmail) : null;
      if (!email) return [];
      return [
        {
          projectId,
          userId: rows[index]!.id!,
          email,
          verified: input.primaryEmailVerified ?? false,
          usedForAuth: input.primaryEmailAuthEnabled ?? true,
        },
      ];
    });
    await insertPrimaryEmails(tx as Database, channels);
    for (const user of created) {
      for (const hook of hooks.userCreated) {
        await hook(tx as Database, { projectId, user, config, personalTeamId: null, oauthProviders: [] });
      }
    }
    const relations = await loadUserRelations(tx as Database, projectId, created);
    await recordEvents(
      tx as Database,
      projectId,
      created.map((user) => ({
        type: "user.created" as const,
        data: userView(user, relations, config),
        userId: user.id,
      })),
    );
    return created;
  });
}

export async function deleteUser(db: Database, projectId: string, userId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const memberships = await tx
      .select({ teamId: teamMembers.teamId })
      .from(teamMembers)
      .where(and(eq(teamMembers.projectId, projectId), eq(teamMembers.userId, userId)))
      .orderBy(teamMembers.teamId);
    // Sessions, contact channels, memberships and everything else of the user cascade from this row.
    const deleted = await tx
      .delete(users)
      .where(and(eq(users.projectId, projectId), eq(users.id, userId)))
      .returning({ id: users.id });
    if (deleted.length === 0) return;
    // One team_membership.deleted per team, then user.deleted (PROTOCOL-EXTRA §3.1).
    await recordEvents(tx as Database, projectId, [
      ...memberships.map((m) => ({
        type: "team_membership.deleted" as const,
        data: { team_id: m.teamId, user_id: userId },
        teamId: m.teamId,
        userId,
      })),
      {
        type: "user.deleted",
        data: { id: userId, teams: memberships.map((m) => ({ id: m.teamId })) },
        userId,
      },
    ]);
  });
}

/** user.created / user.updated with the server user read as it is now, in the caller's transaction. */
export async function recordUserEvent(
  tx: Database,
  type: "user.created" | "user.updated",
  projectId: string,
  user: UserRow,
  config: RenderedConfig,
): Promise<void> {
  await recordEvents(tx, projectId, [
    { type, data: await loadUserView(tx, projectId, user, config), userId: user.id },
  ]);
}
