/**
 * Hashing and comparison of high-entropy secrets (refresh tokens, API keys, verification codes).
 *
 * Why a plain, fast, unsalted SHA-256 is right here (and would be wrong for passwords): these secrets are 225 random
 * bits. Salting and slow hashing exist to stop dictionary and brute-force attacks on low-entropy input; nobody can
 * enumerate 2^225 candidates, fast hash or not. Being unsalted and deterministic is what lets the database look a
 * token up by its hash through an index. Someone who reads the database gets hashes they cannot turn back into
 * usable tokens.
 *
 * Passwords are different: see `password.ts`.
 */

import { createHash, timingSafeEqual } from "node:crypto";

/** SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex characters. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** SHA-256 of the UTF-8 bytes of `text`, as 32 raw bytes. */
export function sha256Bytes(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * `a === b`, in time that depends on neither where the strings first differ nor their lengths.
 *
 * A plain `===` returns as soon as a character differs, so its running time tells an attacker how long a prefix
 * they guessed right; repeated over many requests that can recover a secret byte by byte. `timingSafeEqual` compares
 * every byte, but it throws on buffers of different lengths, and branching on the length first would leak the
 * length. So both sides are first hashed to 32-byte SHA-256 digests, which always have the same length, and the
 * digests are compared. Equal digests mean equal strings (a SHA-256 collision is not a practical concern).
 */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256Bytes(a), sha256Bytes(b));
}
