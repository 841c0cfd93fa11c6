/**
 * Encryption of short secrets that the server must read back: OAuth client secrets, SMTP passwords, TOTP secrets.
 * (Secrets that only need to be checked, like passwords and tokens, are hashed instead, never encrypted.)
 *
 * Algorithm: AES-256-GCM, the standard authenticated cipher. "Authenticated" is the point: decryption refuses any
 * value that was changed, truncated or made with another key, instead of returning garbage.
 *
 * Key: HKDF-SHA256 (RFC 5869) from the master secret (`GATEHOUSE_SECRET`) and a purpose label, 32 bytes. A separate
 * key per purpose means a ciphertext copied from one column into another (say, an SMTP password into a TOTP secret)
 * fails to decrypt, rather than being accepted in the wrong place.
 *
 * Format, all ASCII, safe in JSON and SQL text columns:
 *
 *   v1.<iv>.<ciphertext followed by the 16-byte tag>      (both parts base64url without padding)
 *
 * The version prefix lets a future format (another cipher, key rotation) be introduced while old values stay
 * readable. The version string is also fed to GCM as additional authenticated data, so a value cannot be relabelled
 * to another version.
 *
 * IV: 12 random bytes per encryption (the size GCM is designed for). With random IVs NIST SP 800-38D allows 2^32
 * encryptions under one key; we make a few per configuration change, so that limit is unreachable.
 */

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/** What a key is derived from. Use a fixed, descriptive purpose per kind of secret, e.g. "smtp-password". */
export type SecretEncryptionKey = {
  masterSecret: string;
  purpose: string;
};

/** Thrown by `decryptSecret` for a value it cannot decrypt. The message says why, without echoing the value. */
export class SecretDecryptionError extends Error {
  override name = "SecretDecryptionError";
}

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** HKDF salt: a fixed domain label (RFC 5869 §3.1 allows a non-secret constant; the master secret is the entropy). */
const HKDF_SALT = "gatehouse/secret-encryption/v1";
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function deriveKey({ masterSecret, purpose }: SecretEncryptionKey): Buffer {
  if (typeof masterSecret !== "string" || masterSecret.length === 0) {
    throw new TypeError("Secret encryption needs a non-empty master secret");
  }
  if (typeof purpose !== "string" || purpose.length === 0) {
    throw new TypeError("Secret encryption needs a non-empty purpose label");
  }
  return Buffer.from(hkdfSync("sha256", masterSecret, HKDF_SALT, `purpose:${purpose}`, KEY_BYTES));
}

/** Encrypts `plaintext` (UTF-8) into a `v1.…` string. Encrypting the same text twice gives different strings. */
export function encryptSecret(plaintext: string, key: SecretEncryptionKey): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(key), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(VERSION, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${iv.toString("base64url")}.${ciphertext.toString("base64url")}`;
}

/**
 * Decrypts a value made by `encryptSecret` with the same master secret and purpose. Throws `SecretDecryptionError` if
 * the value is not in the format, has an unknown version, or fails authentication (tampered, truncated, or encrypted
 * with another master secret or purpose).
 */
export function decryptSecret(value: string, key: SecretEncryptionKey): string {
  const aesKey = deriveKey(key);
  if (typeof value !== "string") throw new SecretDecryptionError("Encrypted secret must be a string");
  const parts = value.split(".");
  if (parts.length !== 3) {
    throw new SecretDecryptionError("Not an encrypted secret: expected the form v1.<iv>.<ciphertext>");
  }
  const [version, ivText, dataText] = parts as [string, string, string];
  if (version !== VERSION) {
    throw new SecretDecryptionError(`Unsupported encrypted secret version "${version.slice(0, 10)}"`);
  }
  // Buffer's base64url decoder silently skips characters outside the alphabet, so check the alphabet first.
  if (!BASE64URL.test(ivText) || !BASE64URL.test(dataText)) {
    throw new SecretDecryptionError("Encrypted secret is not valid base64url");
  }
  const iv = Buffer.from(ivText, "base64url");
  const data = Buffer.from(dataText, "base64url");
  if (iv.length !== IV_BYTES || data.length < TAG_BYTES) {
    throw new SecretDecryptionError("Encrypted secret is truncated or malformed");
  }
  // Only the canonical encoding is accepted, so that one ciphertext has exactly one spelling (otherwise flipping the
  // unused low bits of the last character would give a different string that still decrypts).
  if (iv.toString("base64url") !== ivText || data.toString("base64url") !== dataText) {
    throw new SecretDecryptionError("Encrypted secret is not canonical base64url");
  }
  const decipher = createDecipheriv("aes-256-gcm", aesKey, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(VERSION, "utf8"));
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  try {
    return Buffer.concat([
      decipher.update(data.subarray(0, data.length - TAG_BYTES)),
      decipher.final(),
    ]).toString("utf8");
  } catch {
    throw new SecretDecryptionError(
      "Encrypted secret failed authentication: it was modified, or encrypted with a different master secret or purpose",
    );
  }
}

/** Whether `value` has the shape of an encrypted secret (a cheap check, e.g. to tell legacy plaintext apart). */
export function isEncryptedSecret(value: string): boolean {
  const parts = value.split(".");
  return parts.length === 3 && parts[0] === VERSION && BASE64URL.test(parts[1]!) && BASE64URL.test(parts[2]!);
}
