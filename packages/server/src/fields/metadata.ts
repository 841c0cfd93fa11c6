/** Rules for the JSON metadata of users, teams and projects (client, client read-only and server metadata). */
import { z } from "zod";
import { isStorableText, NOT_STORABLE } from "./text.ts";

/** Serialized size limit of each metadata field (UTF-8 bytes of its JSON). */
export const MAX_METADATA_BYTES = 100_000;
/** Nesting limit of metadata: deeper values are almost certainly abuse, and stringifying them recurses. */
export const MAX_METADATA_DEPTH = 64;
/** Why a JSON value cannot be stored as user metadata, or null when it can. Walks iteratively: no deep recursion. */
export function metadataProblem(value: unknown): string | null {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (depth > MAX_METADATA_DEPTH) return `is nested too deeply (at most ${MAX_METADATA_DEPTH} levels)`;
    if (typeof current === "string") {
      if (!isStorableText(current)) return `contains a string that ${NOT_STORABLE}`;
    } else if (Array.isArray(current)) {
      for (const item of current) pending.push([item, depth + 1]);
    } else if (current !== null && typeof current === "object") {
      for (const [key, item] of Object.entries(current)) {
        if (!isStorableText(key)) return `contains a key that ${NOT_STORABLE}`;
        pending.push([item, depth + 1]);
      }
    }
  }
  if (Buffer.byteLength(JSON.stringify(value) ?? "null", "utf8") > MAX_METADATA_BYTES) {
    return `is too large: at most ${MAX_METADATA_BYTES} bytes of JSON`;
  }
  return null;
}

/** Any JSON value (null clears it), within the limits above. */
export const metadataField = z.unknown().superRefine((value, ctx) => {
  const problem = value === undefined ? null : metadataProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
