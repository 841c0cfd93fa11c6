/**
 * Text that can reach the database. PostgreSQL refuses NUL characters in text and unpaired surrogates in jsonb, so
 * every text field of every feature refuses them in its schema: a 400 at the door rather than a 500 at the insert.
 */
import { z } from "zod";

export const MAX_DISPLAY_NAME_LENGTH = 256;

const NUL_OR_LONE_SURROGATE = /\0|[\uD800-\uDFFF]/u;

/** Whether PostgreSQL can store this string as text or inside jsonb. */
export function isStorableText(value: string): boolean {
  return !NUL_OR_LONE_SURROGATE.test(value);
}

export const NOT_STORABLE = "must not contain NUL characters or unpaired surrogates";

export function storableText(max: number) {
  return z.string().max(max).refine(isStorableText, NOT_STORABLE);
}

export const displayNameField = storableText(MAX_DISPLAY_NAME_LENGTH);
