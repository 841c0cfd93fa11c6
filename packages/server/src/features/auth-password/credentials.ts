import { sql } from "drizzle-orm";
import { hashPassword, verifyPassword, verifyPasswordAgainstDummy } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { jsonRowOf, parseJsonRow } from "../../db/json-rows.ts";
import { preparedSql } from "../../db/prepared-sql.ts";
import { normalizeEmail } from "../../fields/email.ts";
import type { RateLimitScope } from "../../rate-limit/limiter.ts";
import {
  type KnownAddress,
  knownAddressOf,
  knownAddressSql,
  knownAddressTimes,
} from "../../rate-limit/password-checks.ts";
import { type ContactChannelRow, contactChannels } from "../contact-channels/schema.ts";
import { type UserRow, users } from "../users/schema.ts";
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

// The user who signs in with the email (as `findUserByAuthEmail` finds them) and whether the caller's address is
// known to them (rate-limit/password-checks.ts), in one round trip: the known-address question is asked of no one
// when the email has no account, so that costs the same.
const ownerAndAddressStatement = preparedSql<
  {
    projectId: string;
    email: string;
    address: string | null;
    now: string;
    knownSince: string;
    recentSince: string;
  },
  { user: unknown; channel: unknown; known: boolean; recorded_recently: boolean }
>(
  "password_owner_and_address",
  sql`select owner.user, owner.channel, address.known, address.recorded_recently
    from (select 1) as one
    left join lateral (
      select ${jsonRowOf(users, "u")} as user, ${jsonRowOf(contactChannels, "c")} as channel, u.id as user_id
      from ${contactChannels} c join ${users} u on u.id = c.user_id
      where c.project_id = ${sql.placeholder("projectId")} and c.type = 'email'
        and c.value = ${sql.placeholder("email")} and c.used_for_auth
      limit 1) as owner on true
    cross join lateral (${knownAddressSql(sql`owner.user_id`)}) as address`,
);

/**
 * A password sign-in's first read: the email's owner with that channel (null: nobody), and whether the caller's
 * address is one the owner signed in from, for `consumePasswordCheckLimits`.
 */
export async function findPasswordOwner(
  scope: Pick<RateLimitScope, "db" | "projectId" | "clientIp">,
  email: string,
): Promise<{ owner: { user: UserRow; channel: ContactChannelRow } | null; address: KnownAddress }> {
  const [row] = await ownerAndAddressStatement(scope.db, {
    projectId: scope.projectId,
    email: normalizeEmail(email),
    address: scope.clientIp,
    ...knownAddressTimes(),
  });
  const user = parseJsonRow(users, row?.user);
  const channel = parseJsonRow(contactChannels, row?.channel);
  return { owner: user && channel ? { user, channel } : null, address: knownAddressOf(row) };
}
