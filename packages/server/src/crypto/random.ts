/**
 * Random strings for secrets and identifiers.
 *
 * Everything here reads the operating system's CSPRNG through `crypto.getRandomValues` / `node:crypto`.
 * `Math.random` is never used for anything that an attacker could benefit from guessing.
 */

import { randomBytes, randomUUID } from "node:crypto";

/**
 * Lowercase Crockford base32: digits and letters without i, l, o and u, so that a code read aloud or typed from an
 * email cannot be confused (1/l/i, 0/o) and cannot spell most words. 32 symbols = exactly 5 bits each.
 */
export const CROCKFORD_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** `getRandomValues` refuses to fill more than 65,536 bytes per call (Web Crypto limit). */
const MAX_BYTES_PER_CALL = 65_536;

/**
 * `length` random characters of lowercase Crockford base32, 5 bits of entropy per character.
 *
 * Why there is no modulo bias: each character takes one random byte and keeps its low 5 bits (`byte & 31`). A byte
 * has 256 values and 256 = 8 × 32, so every one of the 32 characters is hit by exactly 8 byte values and is exactly
 * equally likely. (The common mistake is `byte % alphabet.length` with an alphabet whose size does not divide 256.)
 * Three bits per byte are thrown away; that costs nothing that matters.
 */
export function randomCrockford(length: number): string {
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(`randomCrockford: length must be a non-negative integer, got ${length}`);
  }
  let result = "";
  while (result.length < length) {
    const bytes = new Uint8Array(Math.min(length - result.length, MAX_BYTES_PER_CALL));
    crypto.getRandomValues(bytes);
    for (const byte of bytes) {
      result += CROCKFORD_ALPHABET[byte & 31];
    }
  }
  return result;
}

/** Length of refresh tokens, verification codes and the random part of API keys (PROTOCOL.md §4.2, §5.3). */
export const SECURE_TOKEN_LENGTH = 45;

/**
 * A 45-character lowercase Crockford base32 string: 45 × 5 = 225 bits of entropy (PROTOCOL.md says "224 bits").
 * Used for refresh tokens, verification codes (OTP, password reset, email verification, invitations) and the secret
 * part of API keys. Far beyond guessing range: at a billion guesses per second against a billion live tokens, finding
 * any one of them takes about 2^140 years.
 *
 * Only SHA-256 hashes of these are stored (see `hash.ts`); the plaintext goes to the client (or into an email) once.
 */
export function generateSecureToken(): string {
  return randomCrockford(SECURE_TOKEN_LENGTH);
}

/** `bytes` random bytes as lowercase hex (so `2 × bytes` characters). */
export function randomHex(bytes: number): string {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new RangeError(`randomHex: bytes must be a non-negative integer, got ${bytes}`);
  }
  return randomBytes(bytes).toString("hex");
}

/**
 * A random (version 4) UUID, lowercase with dashes: 122 random bits. Good for row ids, which are not secrets; do
 * not use a UUID where a secret is needed, use `generateSecureToken()` instead.
 */
export function randomUuid(): string {
  return randomUUID();
}
