/**
 * Every write to `contact_channels` from outside this folder goes through here, so that the table's two rules have
 * one home: a user has at most one primary channel (demote before promoting: the unique index is checked row by
 * row), and an address is unique per user and type (upsert on that key instead of inserting twice). Sign-in
 * uniqueness across users is the callers' check before they write (see `findUserByAuthEmail`).
 */
import { and, eq, type SQL } from "drizzle-orm";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { contactChannels } from "./schema.ts";

type UserEmail = { projectId: string; userId: string; email: string };

/** The row of a new primary email channel. */
function newPrimaryEmail(channel: UserEmail & { verified: boolean; usedForAuth: boolean }) {
  return {
    projectId: channel.projectId,
    id: randomUuid(),
    userId: channel.userId,
    type: "email" as const,
    value: channel.email,
    isVerified: channel.verified,
    isPrimary: true,
    usedForAuth: channel.usedForAuth,
  };
}

/** "The channels of this user in this project", narrowed by whatever else is given. */
export function userChannelsWhere(projectId: string, userId: string, ...narrowing: (SQL | undefined)[]) {
  return and(eq(contactChannels.projectId, projectId), eq(contactChannels.userId, userId), ...narrowing);
}

/** The primary email of a user being created (the user has no channel yet). */
export async function insertPrimaryEmail(
  tx: Database,
  channel: UserEmail & { verified: boolean; usedForAuth: boolean },
): Promise<void> {
  await tx.insert(contactChannels).values(newPrimaryEmail(channel));
}

/** The primary emails of users being created together (an import), in one statement. */
export async function insertPrimaryEmails(
  tx: Database,
  channels: readonly (UserEmail & { verified: boolean; usedForAuth: boolean })[],
): Promise<void> {
  if (channels.length === 0) return;
  await tx.insert(contactChannels).values(channels.map(newPrimaryEmail));
}

/**
 * Makes `email` the user's primary email: the current primary is demoted (kept as a contact channel), then the
 * address is added, or, when the user already has it as a channel, that channel is promoted and gets the flags of
 * `whenAlreadyPresent` (its verification is kept unless `markVerified`).
 */
export async function makePrimaryEmail(
  tx: Database,
  channel: UserEmail & {
    verified: boolean;
    usedForAuth: boolean;
    whenAlreadyPresent: { usedForAuth?: boolean; markVerified?: boolean };
  },
): Promise<void> {
  await tx
    .update(contactChannels)
    .set({ isPrimary: false })
    .where(
      and(
        eq(contactChannels.projectId, channel.projectId),
        eq(contactChannels.userId, channel.userId),
        eq(contactChannels.isPrimary, true),
      ),
    );
  const { usedForAuth, markVerified } = channel.whenAlreadyPresent;
  await tx
    .insert(contactChannels)
    .values(newPrimaryEmail(channel))
    .onConflictDoUpdate({
      target: [contactChannels.userId, contactChannels.type, contactChannels.value],
      set: {
        isPrimary: true,
        ...(usedForAuth !== undefined ? { usedForAuth } : {}),
        ...(markVerified ? { isVerified: true } : {}),
      },
    });
}

/** Marks the user's channel with this address verified; its id, or null when the address is no longer theirs. */
export async function markEmailVerified(tx: Database, channel: UserEmail): Promise<string | null> {
  const [row] = await tx
    .update(contactChannels)
    .set({ isVerified: true })
    .where(
      and(
        eq(contactChannels.projectId, channel.projectId),
        eq(contactChannels.userId, channel.userId),
        eq(contactChannels.type, "email"),
        eq(contactChannels.value, channel.email),
      ),
    )
    .returning({ id: contactChannels.id });
  return row?.id ?? null;
}
