import { and, eq, isNull, lt, lte, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Database } from "../db/index.ts";
import { preparedSql } from "../db/prepared-sql.ts";
import { sessions } from "../features/sessions/schema.ts";
import {
  consumeRateLimits,
  countAttempt,
  effectiveRule,
  type RateLimitScope,
  tooManyAttempts,
} from "./limiter.ts";
import { RATE_LIMITS, type RateLimitRule } from "./rules.ts";
import { knownSignInAddresses, rateLimitCounters } from "./schema.ts";

/**
 * Past the per-account ceiling, attempts from unknown addresses are not refused outright: one passes, then the next
 * one waits 2 s, then 4 s, 8 s, ... up to 5 minutes between passes, until the ceiling's window ends. Someone who
 * fails on purpose from many machines thus slows newcomers down without walling the owner out, and guessing stays
 * under 20 extra tries an hour on top of the ceiling's 100 (9 passes in the first 8.5 minutes, then one per 5).
 */
const SLOW_LANE_MAX_WAIT_SECONDS = 300;

/**
 * An address stays known for 90 days after its last successful sign-in: long enough to cover a person's usual
 * places, short enough that an address handed to someone else by their provider stops counting.
 */
const KNOWN_ADDRESS_DAYS = 90;
const DAY_MS = 86_400_000;
/**
 * A sign-in from an address recorded less than a day ago does not write it again: the record then lapses at most a
 * day early (89 days instead of 90), and the usual sign-in, from where the user signed in before, saves a write.
 */
const KNOWN_ADDRESS_REFRESH_MS = DAY_MS;
const NO_USER = "00000000-0000-0000-0000-000000000000";

/** The owner hears about a ceiling reached at most once a day, however long an attack lasts. */
const CEILING_NOTICE = { name: "sign-in:ceiling-notice", windowSeconds: 86_400 };

export type PasswordCheckAccount = {
  /** What the account's counters are keyed by: the normalised email, or `user:<id>` for a signed-in user. */
  account: string;
  /** The user the account is, when there is one (an unknown email has no owner to recognise or tell). */
  userId: string | null;
  /** Tells the owner that the ceiling (its numbers as they apply here) was reached; at most once a day. */
  onCeilingReached?: (ceiling: RateLimitRule) => Promise<void>;
  /** The caller's own limits for this attempt (sign-in's per-address one), counted in the same statement. */
  alongWith?: readonly { rule: RateLimitRule; subject: string | null | undefined }[];
  /** Whether the caller's address is known to `userId`, when read already (with the owner); else read here. */
  address?: KnownAddress;
};

/**
 * Counts one password check (see RATE_LIMITS): per account and address first, which everyone is held to. An
 * address the user signed in from before then skips the per-account ceiling: failures from elsewhere neither fill
 * it for them nor make them wait. Anyone else is counted towards the ceiling and, past it, takes the slow lane.
 * Without a known client address the per-account-and-address limit is keyed by the account alone: stricter.
 * Says whether the address's record is recent, so that a sign-in that passes need not write it again.
 */
export async function consumePasswordCheckLimits(
  scope: RateLimitScope,
  input: PasswordCheckAccount,
): Promise<{ addressRecordedRecently: boolean }> {
  const ip = scope.clientIp;
  await consumeRateLimits(scope, [
    ...(input.alongWith ?? []),
    { rule: RATE_LIMITS.signInPerAccountFromIp, subject: ip ? `${input.account}|${ip}` : input.account },
  ]);
  if (ip) {
    // Looked up for emails without an account too (as a user no one has), so the time taken does not tell them apart.
    const address = input.address ?? (await knownSignInAddress(scope, input.userId ?? NO_USER, ip));
    if (address.known && input.userId) return { addressRecordedRecently: address.recordedRecently };
  }
  const passed = { addressRecordedRecently: false };

  const ceiling = effectiveRule(scope, RATE_LIMITS.signInPerAccount);
  const attempt = await countAttempt(scope, ceiling, input.account);
  if (attempt.count <= ceiling.limit) return passed;
  // Exactly one attempt per window sees the count just past the limit, even among parallel ones.
  if (attempt.count === ceiling.limit + 1 && input.onCeilingReached) {
    const notice = await countAttempt(scope, CEILING_NOTICE, input.account);
    if (notice.count === 1) await input.onCeilingReached(ceiling);
  }

  // One statement takes the slow lane's next pass, so of parallel attempts exactly one gets it.
  const now = attempt.now;
  const slowPass = await scope.db
    .update(rateLimitCounters)
    .set({
      slowPasses: sql`${rateLimitCounters.slowPasses} + 1`,
      slowNextAt: sql`${now.toISOString()}::timestamptz + make_interval(secs => least(power(2, ${rateLimitCounters.slowPasses} + 1), ${sql.raw(String(SLOW_LANE_MAX_WAIT_SECONDS))}))`,
    })
    .where(
      and(
        eq(rateLimitCounters.key, attempt.key),
        or(isNull(rateLimitCounters.slowNextAt), lte(rateLimitCounters.slowNextAt, now)),
      ),
    )
    .returning({ slowPasses: rateLimitCounters.slowPasses });
  if (slowPass.length > 0) return passed;
  const [row] = await scope.db
    .select({ slowNextAt: rateLimitCounters.slowNextAt })
    .from(rateLimitCounters)
    .where(eq(rateLimitCounters.key, attempt.key));
  // A retry passes at the next slow pass, or when the window ends and the count starts over, whichever is first.
  const nextPass = (row?.slowNextAt ?? now).getTime();
  scope.onRefused?.(ceiling.id);
  throw tooManyAttempts(now, new Date(Math.min(nextPass, attempt.windowEndsAt.getTime())));
}

/** Whether the caller's address is one the user signed in from (see `knownSignInAddress`). */
export type KnownAddress = { known: boolean; recordedRecently: boolean };

/**
 * Whether the user signed in from `address` before: a password sign-in recorded here, or a live session last used
 * from there (which also covers sign-ins by email code, OAuth or passkey). Impersonation sessions are someone
 * else's doing and do not count. `recordedRecently`: the record is less than KNOWN_ADDRESS_REFRESH_MS old.
 */
export async function knownSignInAddress(
  scope: RateLimitScope,
  userId: string,
  address: string,
): Promise<KnownAddress> {
  const [row] = await knownAddressStatement(scope.db, {
    projectId: scope.projectId,
    userId,
    address,
    ...knownAddressTimes(),
  });
  return knownAddressOf(row);
}

/** The instants `knownAddressSql` compares with, as its placeholders now, knownSince and recentSince. */
export function knownAddressTimes(now = new Date()): {
  now: string;
  knownSince: string;
  recentSince: string;
} {
  return {
    now: now.toISOString(),
    knownSince: new Date(now.getTime() - KNOWN_ADDRESS_DAYS * DAY_MS).toISOString(),
    recentSince: new Date(now.getTime() - KNOWN_ADDRESS_REFRESH_MS).toISOString(),
  };
}

/** `knownAddressSql`'s columns as a `KnownAddress`; no row (no user, no address) is not known. */
export function knownAddressOf(
  row: { known: boolean; recorded_recently: boolean } | undefined,
): KnownAddress {
  return { known: row?.known === true, recordedRecently: row?.recorded_recently === true };
}

/**
 * Both questions in one select, for the user `userId` names (an SQL expression: a placeholder, or a column of the
 * caller's statement, which may read the user and this in one round trip); a null user id is asked as a user no one
 * has, so an email without an account costs the same. The record is one row by its key, a session from there an
 * `exists` that stops at the first. Placeholders: projectId, address and the `knownAddressTimes`.
 */
export function knownAddressSql(userId: SQLWrapper): SQL {
  const user = sql`coalesce(${userId}, ${sql.raw(`'${NO_USER}'`)}::uuid)`;
  return sql`select recorded.at > ${sql.placeholder("recentSince")}::timestamptz as recorded_recently,
    (recorded.at > ${sql.placeholder("knownSince")}::timestamptz or exists (select 1 from ${sessions}
      where ${sessions.projectId} = ${sql.placeholder("projectId")}
        and ${sessions.userId} = ${user}
        and ${sessions.lastUsedIp} = ${sql.placeholder("address")}
        and not ${sessions.isImpersonation}
        and (${sessions.expiresAt} is null or ${sessions.expiresAt} > ${sql.placeholder("now")}::timestamptz))
    ) as known
    from (select (select ${knownSignInAddresses.lastSignInAt} from ${knownSignInAddresses}
      where ${knownSignInAddresses.projectId} = ${sql.placeholder("projectId")}
        and ${knownSignInAddresses.userId} = ${user}
        and ${knownSignInAddresses.address} = ${sql.placeholder("address")}) as at) as recorded`;
}

const knownAddressStatement = preparedSql<
  {
    projectId: string;
    userId: string;
    address: string;
    now: string;
    knownSince: string;
    recentSince: string;
  },
  { known: boolean; recorded_recently: boolean }
>("known_sign_in_address", knownAddressSql(sql.placeholder("userId")));

/**
 * The upsert that records a sign-in address, as a fragment: the new session's insert runs it in the same statement
 * (sessions/service.ts), so a sign-in's writes after its hash are one round trip and one commit. Written here, with
 * the table it writes. Its values are the placeholders projectId, userId, address (nothing is written when null),
 * remember (false: nothing is written either) and now.
 */
export const recordKnownAddressSql = sql`insert into ${knownSignInAddresses}
    (project_id, user_id, address, last_sign_in_at)
    select ${sql.placeholder("projectId")}::text, ${sql.placeholder("userId")}::uuid, recorded.address,
      ${sql.placeholder("now")}::timestamptz
    from (select ${sql.placeholder("address")}::text as address) as recorded
    where ${sql.placeholder("remember")}::boolean and recorded.address is not null
    on conflict (project_id, user_id, address) do update set last_sign_in_at = excluded.last_sign_in_at`;

/** Forgotten addresses are useless; swept now and then (by one in a hundred recordings) instead of by a job. */
export async function sweepForgottenSignInAddresses(db: Database): Promise<void> {
  if (Math.random() >= 0.01) return;
  await db
    .delete(knownSignInAddresses)
    .where(lt(knownSignInAddresses.lastSignInAt, new Date(Date.now() - KNOWN_ADDRESS_DAYS * DAY_MS)));
}
