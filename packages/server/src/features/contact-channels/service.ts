import { knownError } from "@gatehouse/shared";
import { and, asc, eq, ne } from "drizzle-orm";
import { randomUuid } from "../../crypto/index.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/index.ts";
import { isUuid } from "../../fields/ids.ts";
import { StatusError } from "../../http/status-error.ts";
import { users } from "../users/schema.ts";
import { type ContactChannelRow, contactChannels } from "./schema.ts";
import { userChannelsWhere } from "./store.ts";

export function contactChannelNotFound(): StatusError {
  return new StatusError(404, "Contact channel not found.");
}

function usedForAuthBySomeoneElse(value: string) {
  return knownError("CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE", {
    type: "email",
    contact_channel_value: value,
    would_work_if_email_was_verified: false,
  });
}

/** A user's second channel with one value: the reference answers 400 (a bad request, not a conflict). */
function alreadyOnUser(value: string) {
  return new StatusError(400, `This user already has the contact channel ${JSON.stringify(value)}.`);
}

/** A user's channels, oldest first (the order they were added in). */
export async function listContactChannels(
  db: Database,
  projectId: string,
  userId: string,
  channelId?: string,
): Promise<ContactChannelRow[]> {
  // Ids go into uuid columns: a malformed one would be a database error, so it simply matches nothing.
  if (!isUuid(userId) || (channelId !== undefined && !isUuid(channelId))) return [];
  return db
    .select()
    .from(contactChannels)
    .where(
      userChannelsWhere(
        projectId,
        userId,
        channelId === undefined ? undefined : eq(contactChannels.id, channelId),
      ),
    )
    .orderBy(asc(contactChannels.createdAt), asc(contactChannels.id));
}

export async function findContactChannel(
  db: Database,
  projectId: string,
  userId: string,
  channelId: string,
): Promise<ContactChannelRow | null> {
  const [row] = await listContactChannels(db, projectId, userId, channelId);
  return row ?? null;
}

/**
 * A user holds a value once; a value used for auth belongs to one user of the project. One query answers both.
 * The unique indexes enforce the same rules against races; this check only gives the clear error first.
 */
async function assertValueIsFree(
  tx: Database,
  projectId: string,
  channel: { userId: string; value: string; usedForAuth: boolean; selfId?: string },
): Promise<void> {
  const holders = await tx
    .select({ userId: contactChannels.userId, usedForAuth: contactChannels.usedForAuth })
    .from(contactChannels)
    .where(
      and(
        eq(contactChannels.projectId, projectId),
        eq(contactChannels.type, "email"),
        eq(contactChannels.value, channel.value),
        channel.selfId === undefined ? undefined : ne(contactChannels.id, channel.selfId),
      ),
    );
  if (holders.some((h) => h.userId === channel.userId)) throw alreadyOnUser(channel.value);
  if (channel.usedForAuth && holders.some((h) => h.usedForAuth))
    throw usedForAuthBySomeoneElse(channel.value);
}

/**
 * Locks the user's row for the rest of the transaction. Channel changes of one user then run one after another:
 * under READ COMMITTED two parallel "make this one primary" would otherwise each miss the other's new primary
 * and collide on the one-primary index. Also tells whether the user still exists.
 */
async function lockUser(tx: Database, projectId: string, userId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.projectId, projectId), eq(users.id, userId)))
    .for("update");
  return row !== undefined;
}

/** Unset first, in its own statement: the one-primary index is checked row by row, not at the end. */
async function clearPrimary(tx: Database, projectId: string, userId: string): Promise<void> {
  await tx
    .update(contactChannels)
    .set({ isPrimary: false })
    .where(userChannelsWhere(projectId, userId, eq(contactChannels.isPrimary, true)));
}

function constraintOf(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const constraint = (current as { constraint?: unknown }).constraint;
    if (typeof constraint === "string") return constraint;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Turns a unique-index violation (a race the checks above lost) into the error the check would have given. */
async function withUniqueErrors<T>(value: () => string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    switch (constraintOf(error)) {
      case "contact_channels_auth_value_unique":
        throw usedForAuthBySomeoneElse(value());
      case "contact_channels_user_value_unique":
        throw alreadyOnUser(value());
      default:
        throw new StatusError(409, "The contact channels of this user changed at the same time; try again.");
    }
  }
}

export type NewContactChannel = {
  /** Normalized already (see emailAddressSchema). */
  value: string;
  usedForAuth: boolean;
  isPrimary?: boolean | undefined;
  isVerified?: boolean | undefined;
};

export async function createContactChannel(
  db: Database,
  projectId: string,
  userId: string,
  input: NewContactChannel,
): Promise<ContactChannelRow> {
  if (!isUuid(userId)) throw knownError("USER_ID_DOES_NOT_EXIST", { user_id: userId });
  return withUniqueErrors(
    () => input.value,
    () =>
      db.transaction(async (raw) => {
        const tx = raw as unknown as Database;
        if (!(await lockUser(tx, projectId, userId))) {
          throw knownError("USER_ID_DOES_NOT_EXIST", { user_id: userId });
        }
        await assertValueIsFree(tx, projectId, {
          userId,
          value: input.value,
          usedForAuth: input.usedForAuth,
        });
        if (input.isPrimary) await clearPrimary(tx, projectId, userId);
        const [row] = await tx
          .insert(contactChannels)
          .values({
            projectId,
            id: randomUuid(),
            userId,
            type: "email",
            value: input.value,
            usedForAuth: input.usedForAuth,
            isPrimary: input.isPrimary ?? false,
            isVerified: input.isVerified ?? false,
          })
          .returning();
        return row!;
      }),
  );
}

export type ContactChannelPatch = {
  value?: string | undefined;
  usedForAuth?: boolean | undefined;
  isPrimary?: boolean | undefined;
  isVerified?: boolean | undefined;
};

/**
 * Updates a channel. A new value is unverified (unless the server says otherwise in the same call): proof of the
 * old address says nothing about the new one. `isPrimary: false` leaves the user without a primary email.
 */
export async function updateContactChannel(
  db: Database,
  projectId: string,
  userId: string,
  channelId: string,
  patch: ContactChannelPatch,
): Promise<ContactChannelRow> {
  if (!isUuid(userId) || !isUuid(channelId)) throw contactChannelNotFound();
  let value = patch.value ?? "";
  return withUniqueErrors(
    () => value,
    () =>
      db.transaction(async (raw) => {
        const tx = raw as unknown as Database;
        const where = userChannelsWhere(projectId, userId, eq(contactChannels.id, channelId));
        if (!(await lockUser(tx, projectId, userId))) throw contactChannelNotFound();
        const [existing] = await tx.select().from(contactChannels).where(where);
        if (!existing) throw contactChannelNotFound();

        value = patch.value ?? existing.value;
        const valueChanged = value !== existing.value;
        const usedForAuth = patch.usedForAuth ?? existing.usedForAuth;
        if (valueChanged || (usedForAuth && !existing.usedForAuth)) {
          await assertValueIsFree(tx, projectId, { userId, value, usedForAuth, selfId: existing.id });
        }
        const isPrimary = patch.isPrimary ?? existing.isPrimary;
        if (isPrimary && !existing.isPrimary) await clearPrimary(tx, projectId, userId);
        const [row] = await tx
          .update(contactChannels)
          .set({
            value,
            usedForAuth,
            isPrimary,
            isVerified: patch.isVerified ?? (valueChanged ? false : existing.isVerified),
          })
          .where(where)
          .returning();
        return row!;
      }),
  );
}

/** Deleting the primary channel leaves the user without a primary email; no other channel is promoted. */
export async function deleteContactChannel(
  db: Database,
  projectId: string,
  userId: string,
  channelId: string,
): Promise<void> {
  if (!isUuid(userId) || !isUuid(channelId)) throw contactChannelNotFound();
  const deleted = await db
    .delete(contactChannels)
    .where(userChannelsWhere(projectId, userId, eq(contactChannels.id, channelId)))
    .returning({ id: contactChannels.id });
  if (deleted.length === 0) throw contactChannelNotFound();
}

/** Marks the user's channel with this address verified; null when the user no longer has that address. */
export async function markContactChannelVerified(
  db: Database,
  projectId: string,
  userId: string,
  email: string,
): Promise<ContactChannelRow | null> {
  if (!isUuid(userId)) return null;
  const [row] = await db
    .update(contactChannels)
    .set({ isVerified: true })
    .where(
      userChannelsWhere(
        projectId,
        userId,
        eq(contactChannels.type, "email"),
        eq(contactChannels.value, email),
      ),
    )
    .returning();
  return row ?? null;
}
