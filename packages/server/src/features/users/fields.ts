/**
 * Field rules only user bodies have (PROTOCOL.md §3.2): passwords, imported hashes, TOTP secrets, country, risk
 * scores, restriction reasons. Rules shared with other features (text, email, ids, metadata, images) are in
 * src/fields/.
 */
import { z } from "zod";
import { isStorableText, NOT_STORABLE, storableText } from "../../fields/text.ts";

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 70;
/** A TOTP secret is 20 bytes in practice (RFC 4226 recommends 160 bits); RFC 4226 requires at least 128. */
export const TOTP_SECRET_MIN_BYTES = 16;
export const TOTP_SECRET_MAX_BYTES = 128;

/** Length is checked by the handler, which answers PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG (PROTOCOL.md §2.3). */
export const passwordField = z.string().refine(isStorableText, NOT_STORABLE);

/**
 * An imported hash. Which ones are taken is checked with the body's other password rules (users/requests.ts
 * `checkServerWrite`), after "password and password_hash together", as the reference orders them.
 */
export const passwordHashField = z.string();

/**
 * The reference's plain text for a hash it cannot verify (PROTOCOL-EXTRA §8.7). Beyond its bcrypt, Argon2
 * ($argon2id$, $argon2i$, $argon2d$) and scrypt ($scrypt$, $firebase-scrypt$) hashes are taken too
 * (crypto/scrypt-hashes.ts).
 */
export const INVALID_PASSWORD_HASH =
  "Invalid password hash. Make sure it's a supported algorithm in Modular Crypt Format.";

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
