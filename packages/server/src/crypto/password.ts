/**
 * Password hashing.
 *
 * New hashes: Argon2id with the OWASP Password Storage Cheat Sheet's baseline parameters: 19 MiB of memory
 * (m = 19456 KiB), 2 passes (t = 2), 1 lane (p = 1), a 16-byte random salt and a 32-byte output. That is roughly
 * 15-40 ms on one core of a current server. Memory is what makes it expensive to attack: a GPU or ASIC has to
 * spend 19 MiB of fast memory on every guess it runs in parallel, which is what limits how many guesses it can run.
 * The work runs on libuv's thread pool (4 threads by default), not on the event loop, so at most about 4 × 19 MiB
 * is in use at a time.
 *
 * Stored hashes are PHC strings, e.g. `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`: the parameters travel with the
 * hash, so they can be raised later without breaking old hashes (see `needsRehash`).
 *
 * Imported hashes: users migrated from other systems can bring bcrypt hashes (`$2a$`, `$2b$`, `$2y$`), Argon2i and
 * Argon2d PHC strings, and scrypt hashes (plain or Firebase's variant, see scrypt-hashes.ts). They are verified as
 * they are and replaced by an Argon2id hash on the next successful sign-in, when the plaintext is available
 * (`needsRehash`). Note that bcrypt only looks at the first 72 bytes of a password.
 *
 * Passwords are hashed exactly as given (no trimming, no Unicode normalisation), because imported hashes were made
 * from the exact bytes users typed on the old system.
 *
 * Nothing here throws on bad input: a malformed or unknown hash simply does not verify.
 */

import { type Algorithm, hash as argon2Hash, verify as argon2Verify, parseOptions } from "@node-rs/argon2";
import { verify as bcryptVerify } from "@node-rs/bcrypt";
import { parseScryptHash, type ScryptHash, verifyScryptHash } from "./scrypt-hashes.ts";

/** The Argon2id parameters for new hashes (OWASP: m = 19 MiB, t = 2, p = 1). */
export const ARGON2ID_PARAMETERS = {
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
  outputLen: 32,
} as const;

// `Algorithm` and `Version` are `const enum`s in the package's types, which `isolatedModules` cannot read as values
// (and the native module exports them as empty objects), so the numbers are spelled out here.
const ARGON2ID: Algorithm.Argon2id = 2;
/** `Version.V0x13`, i.e. Argon2 version 1.3 (`v=19` in PHC strings), the current one. */
const ARGON2_VERSION_1_3 = 1;

/**
 * Upper bounds for hashes we accept at all. Verifying a hash costs what its parameters say, so an imported hash with
 * m = 4 GiB or a bcrypt cost of 31 (2^31 rounds, days of CPU) would let one sign-in attempt stall the server.
 */
const MAX_ARGON2_MEMORY_KIB = 262_144; // 256 MiB
const MAX_ARGON2_TIME_COST = 16;
const MAX_ARGON2_PARALLELISM = 16;
const MAX_BCRYPT_COST = 16; // 2^16 rounds, several seconds; common values are 10 to 12

const ARGON2_PHC =
  /^\$argon2(?:id|i|d)\$(?:v=(?:16|19)\$)?m=\d{1,10},t=\d{1,10},p=\d{1,3}\$[A-Za-z0-9+/]{11,}\$[A-Za-z0-9+/]{22,}$/;
/** Modular Crypt Format bcrypt: `$2b$` + 2-digit cost + `$` + 22 characters of salt + 31 of hash, `./A-Za-z0-9`. */
const BCRYPT_MCF = /^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/;

type HashInfo =
  | { kind: "argon2"; needsRehash: boolean }
  | { kind: "bcrypt"; needsRehash: true }
  | { kind: "scrypt"; needsRehash: true; parsed: ScryptHash };

/** What kind of hash this is, within our limits, or null. */
function inspectHash(hash: unknown): HashInfo | null {
  if (typeof hash !== "string") return null;
  if (ARGON2_PHC.test(hash)) {
    let options: ReturnType<typeof parseOptions>;
    try {
      options = parseOptions(hash);
    } catch {
      return null;
    }
    if (
      options.algorithm !==
        (hash.startsWith("$argon2id$") ? ARGON2ID : hash.startsWith("$argon2i$") ? 1 : 0) ||
      options.memoryCost > MAX_ARGON2_MEMORY_KIB ||
      options.timeCost > MAX_ARGON2_TIME_COST ||
      options.parallelism > MAX_ARGON2_PARALLELISM ||
      options.saltLen < 8 || // RFC 9106 minimum
      options.outputLen < 16
    ) {
      return null;
    }
    // Rehash when any parameter is weaker than the current policy. Stronger ones are kept: never downgrade.
    const needsRehash =
      options.algorithm !== ARGON2ID ||
      options.version !== ARGON2_VERSION_1_3 ||
      options.memoryCost < ARGON2ID_PARAMETERS.memoryCost ||
      options.timeCost < ARGON2ID_PARAMETERS.timeCost ||
      options.outputLen < ARGON2ID_PARAMETERS.outputLen ||
      options.saltLen < 16;
    return { kind: "argon2", needsRehash };
  }
  const bcrypt = BCRYPT_MCF.exec(hash);
  if (bcrypt) {
    if (Number(bcrypt[1]) > MAX_BCRYPT_COST) return null;
    return { kind: "bcrypt", needsRehash: true };
  }
  const scrypt = parseScryptHash(hash);
  return scrypt ? { kind: "scrypt", needsRehash: true, parsed: scrypt } : null;
}

/** A new Argon2id PHC string for `password`, with a fresh random salt. */
export async function hashPassword(password: string): Promise<string> {
  return argon2Hash(password, { ...ARGON2ID_PARAMETERS, algorithm: ARGON2ID });
}

export type PasswordVerification = {
  valid: boolean;
  /** True when the password was right but the stored hash is bcrypt or uses weaker parameters than today's. */
  needsRehash: boolean;
};

const INVALID: PasswordVerification = { valid: false, needsRehash: false };

/**
 * Checks `password` against a stored hash: an Argon2id PHC string, or an imported bcrypt, Argon2i/d or scrypt hash. Never throws. An
 * unknown or malformed hash verifies as invalid, after the same dummy work as an unknown user (so every call costs
 * one password hash, whatever is stored).
 *
 * When the result is `{valid: true, needsRehash: true}`, store `await hashPassword(password)` in place of the old hash.
 */
export async function verifyPassword(hash: string, password: string): Promise<PasswordVerification> {
  const info = inspectHash(hash);
  if (!info || typeof password !== "string") {
    await verifyPasswordAgainstDummy(typeof password === "string" ? password : "");
    return INVALID;
  }
  try {
    const valid =
      info.kind === "argon2"
        ? await argon2Verify(hash, password)
        : info.kind === "scrypt"
          ? await verifyScryptHash(info.parsed, password)
          : await bcryptVerify(password, hash);
    return valid ? { valid: true, needsRehash: info.needsRehash } : INVALID;
  } catch {
    return INVALID;
  }
}

/**
 * A fixed Argon2id hash of a random password that was thrown away, made with `ARGON2ID_PARAMETERS` (a test checks
 * that they match). Nothing can verify against it.
 */
const DUMMY_HASH =
  "$argon2id$v=19$m=19456,t=2,p=1$rsyEjCq7PHyqWsl4utfiLQ$0unXLJw6Xl8MUFCIjHob24Va6jDKK6+P5lZT0qHrtDY";

/** Exported for tests; not part of the public API in index.ts. */
export const DUMMY_PASSWORD_HASH = DUMMY_HASH;

/**
 * Does the work of one password verification and returns false. Call it when a sign-in names an unknown email, or a
 * user without a password, so that the response takes as long as a wrong password would. Otherwise an attacker can
 * tell from the response time alone which emails have accounts (one Argon2id run is tens of milliseconds, easy to
 * measure over the network).
 */
export async function verifyPasswordAgainstDummy(password: string): Promise<false> {
  try {
    await argon2Verify(DUMMY_HASH, password);
  } catch {
    // Nothing to do: the result is false either way.
  }
  return false;
}

/**
 * Whether `hash` is a password hash we can store and later verify: an Argon2 PHC string (id, i or d), a bcrypt hash
 * in Modular Crypt Format (`$2a$`, `$2b$`, `$2y$`) or a scrypt hash (scrypt-hashes.ts), within the cost limits. Use it to validate the `password_hash`
 * field of user create/update requests before storing it.
 */
export function isSupportedPasswordHash(hash: string): boolean {
  return inspectHash(hash) !== null;
}
