import { z } from "zod";

/** Ids of rows are UUIDs; anything else cannot name a row, so lookups answer "not found" without a query. */
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** A path or query parameter naming a user: its id, or `me` for the signed-in user (the reference's userIdOrMe). */
export const userIdOrMeField = z.union([
  z.literal("me"),
  z.uuid({ error: 'must be a user id (a UUID) or "me"' }),
]);
