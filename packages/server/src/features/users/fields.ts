/**
 * Field rules for user create and update bodies (PROTOCOL.md §3.2). Anything that reaches the database must be
 * storable there: PostgreSQL refuses NUL characters in text and unpaired surrogates in jsonb, so those are a 400 here
 * rather than a 500 later.
 */
import { z } from "zod";
import { isSupportedPasswordHash } from "../../crypto/index.ts";

/** Serialized size limit of each metadata field (UTF-8 bytes of its JSON). */
export const MAX_METADATA_BYTES = 100_000;
/** Nesting limit of metadata: deeper values are almost certainly abuse, and stringifying them recurses. */
export const MAX_METADATA_DEPTH = 64;
/** Length limit of a profile image URL; the reference allows 1 MB, which fits a small base64 image. */
export const MAX_PROFILE_IMAGE_URL_LENGTH = 1_000_000;
export const MAX_DISPLAY_NAME_LENGTH = 256;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 70;
/** A TOTP secret is 20 bytes in practice (RFC 4226 recommends 160 bits); RFC 4226 requires at least 128. */
export const TOTP_SECRET_MIN_BYTES = 16;
export const TOTP_SECRET_MAX_BYTES = 128;

const NUL_OR_LONE_SURROGATE = /\0|[\uD800-\uDFFF]/u;

/** Whether PostgreSQL can store this string as text or inside jsonb. */
export function isStorableText(value: string): boolean {
  return !NUL_OR_LONE_SURROGATE.test(value);
}

const NOT_STORABLE = "must not contain NUL characters or unpaired surrogates";

export function storableText(max: number) {
  return z.string().max(max).refine(isStorableText, NOT_STORABLE);
}

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

const IMAGE_DATA_URL =
  /^data:image\/(?:png|jpeg|gif|webp);base64,(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function isImageDataUrl(value: string): boolean {
  return IMAGE_DATA_URL.test(value) && !value.endsWith(",");
}

function isHttpUrl(value: string): boolean {
  if (/\s/.test(value) || !isStorableText(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** Clients may only upload an image inline, so that they cannot point other users' browsers at arbitrary hosts. */
export const clientProfileImageField = z
  .string()
  .max(MAX_PROFILE_IMAGE_URL_LENGTH)
  .refine(isImageDataUrl, "must be a base64 image data URL (data:image/png|jpeg|gif|webp;base64,…)");

export const serverProfileImageField = z
  .string()
  .max(MAX_PROFILE_IMAGE_URL_LENGTH)
  .refine(
    (value) => isImageDataUrl(value) || isHttpUrl(value),
    "must be an http(s) URL or a base64 image data URL (data:image/png|jpeg|gif|webp;base64,…)",
  );

/** Surrounding spaces are forgiven (they are a copy-paste accident); the address is stored lower-cased. */
export const emailField = z.string().trim().pipe(z.email().max(254));

export const displayNameField = storableText(MAX_DISPLAY_NAME_LENGTH);

/** Length is checked by the handler, which answers PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG (PROTOCOL.md §2.3). */
export const passwordField = z.string().refine(isStorableText, NOT_STORABLE);

export const passwordHashField = z
  .string()
  .refine(
    isSupportedPasswordHash,
    "must be a bcrypt ($2a$, $2b$, $2y$, cost at most 16) or Argon2id hash in Modular Crypt Format",
  );

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const totpSecretField = z
  .string()
  .max(TOTP_SECRET_MAX_BYTES * 2)
  .refine((value) => BASE64.test(value), "must be standard base64")
  .refine((value) => {
    const bytes = Buffer.from(value, "base64").length;
    return bytes >= TOTP_SECRET_MIN_BYTES && bytes <= TOTP_SECRET_MAX_BYTES;
  }, `must decode to ${TOTP_SECRET_MIN_BYTES} to ${TOTP_SECRET_MAX_BYTES} bytes`);

const regionNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });

/** An ISO 3166-1 alpha-2 code, any case and surrounding spaces accepted, stored upper-case. */
export const countryCodeField = z
  .string()
  .max(8)
  .transform((value) => value.trim().toUpperCase())
  .refine(
    (value) => /^[A-Z]{2}$/.test(value) && regionNames.of(value) !== undefined,
    "must be a 2-letter ISO country code",
  );

const riskScore = z.number().int().min(0).max(100);
export const riskScoresField = z.strictObject({
  sign_up: z.strictObject({ bot: riskScore, free_trial_abuse: riskScore }),
});

export const restrictedReasonTextField = storableText(10_000);
