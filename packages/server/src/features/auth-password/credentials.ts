import { hashPassword, verifyPassword, verifyPasswordAgainstDummy } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import type { UserRow } from "../users/schema.ts";
import { findUserByAuthEmail } from "../users/service.ts";
import { storePasswordHash } from "../users/store.ts";

/** The two ways a password attempt is checked; tests pass counting wrappers around the real functions. */
export type PasswordVerifier = {
  verify: typeof verifyPassword;
  verifyDummy: typeof verifyPasswordAgainstDummy;
};

export const defaultVerifier: PasswordVerifier = {
  verify: verifyPassword,
  verifyDummy: verifyPasswordAgainstDummy,
};

/**
 * The user whose auth email and password match, or null. Every call runs exactly one Argon2id-class verification,
 * whether the email is unknown, the user has no password, or the password is wrong, so response times do not tell
 * an attacker which emails have accounts. A right password on an outdated hash (an imported bcrypt hash, weaker
 * Argon2 parameters) is re-hashed with today's parameters while the plaintext is at hand.
 */
export async function verifyEmailAndPassword(
  db: Database,
  projectId: string,
  email: string,
  password: string,
  verifier: PasswordVerifier = defaultVerifier,
): Promise<UserRow | null> {
  return verifyPasswordOf(db, projectId, await findUserByAuthEmail(db, projectId, email), password, verifier);
}

/** `verifyEmailAndPassword` for a caller that has looked the email's owner up already (null: nobody). */
export async function verifyPasswordOf(
  db: Database,
  projectId: string,
  found: { user: UserRow } | null,
  password: string,
  verifier: PasswordVerifier = defaultVerifier,
): Promise<UserRow | null> {
  if (!found || found.user.passwordHash === null) {
    await verifier.verifyDummy(password);
    return null;
  }
  const result = await verifier.verify(found.user.passwordHash, password);
  if (!result.valid) return null;
  if (result.needsRehash) {
    await storePasswordHash(db, projectId, found.user.id, await hashPassword(password));
  }
  return found.user;
}
