import { lt, sql } from "drizzle-orm";
import type { Database } from "../db/index.ts";
import { StatusError } from "../http/status-error.ts";
import { rateLimitCounters } from "./schema.ts";

export type RateLimitRule = {
  /** What is limited, e.g. `password-sign-in:account`. */
  name: string;
  /** Attempts allowed per window. */
  limit: number;
  windowSeconds: number;
};

/**
 * Limits for anything that sends email or checks a secret (OWASP ASVS 2.2.1). Per account they stop guessing one
 * victim's secret; per IP they stop spraying many accounts from one machine. Numbers are generous for humans.
 *
 * Password checks are limited per account AND source IP (10 per 5 minutes), with a much higher ceiling per account
 * alone (100 per hour). Why both: with only a tight per-account limit, anyone could lock a victim out by failing on
 * purpose; keyed by IP too, such an attacker only locks themselves out, while guessing from many machines still
 * hits the ceiling after 100 tries an hour, a guessing rate too slow to matter.
 */
export const RATE_LIMITS = {
  signInPerAccountFromIp: { name: "sign-in:account-ip", limit: 10, windowSeconds: 300 },
  signInPerAccount: { name: "sign-in:account", limit: 100, windowSeconds: 3600 },
  signInPerIp: { name: "sign-in:ip", limit: 60, windowSeconds: 300 },
  signUpPerIp: { name: "sign-up:ip", limit: 30, windowSeconds: 3600 },
  emailPerRecipient: { name: "email:recipient", limit: 5, windowSeconds: 600 },
  emailPerIp: { name: "email:ip", limit: 30, windowSeconds: 600 },
  codeCheckPerIp: { name: "code-check:ip", limit: 60, windowSeconds: 300 },
} as const satisfies Record<string, RateLimitRule>;

/**
 * Counts one attempt against `rule` for `subject` and throws a 429 with Retry-After once the window is full.
 * The increment is a single upsert, so parallel attempts are counted exactly, across instances too.
 */
export async function consumeRateLimit(
  db: Database,
  rule: RateLimitRule,
  projectId: string,
  subject: string | null | undefined,
): Promise<void> {
  if (!subject) return;
  const nowMs = Date.now();
  const windowMs = rule.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(nowMs / windowMs) * windowMs);
  const key = `${projectId}:${rule.name}:${subject.toLowerCase()}`;
  const [row] = await db
    .insert(rateLimitCounters)
    .values({ key, windowStart, count: 1 })
    .onConflictDoUpdate({
      target: [rateLimitCounters.key, rateLimitCounters.windowStart],
      set: { count: sql`${rateLimitCounters.count} + 1` },
    })
    .returning({ count: rateLimitCounters.count });
  // Old windows are useless; sweep now and then instead of running a job.
  if (Math.random() < 0.01) {
    await db.delete(rateLimitCounters).where(lt(rateLimitCounters.windowStart, new Date(nowMs - 86_400_000)));
  }
  if ((row?.count ?? 0) > rule.limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + windowMs - nowMs) / 1000));
    throw new StatusError(429, `Too many attempts. Please wait ${retryAfter} seconds and try again.`, {
      "retry-after": String(retryAfter),
    });
  }
}

/**
 * Counts one password check for an account: per account and source IP, then per account alone (see RATE_LIMITS).
 * Without a known IP the per-account-and-IP limit falls back to the account alone, which is stricter, not looser.
 */
export async function consumePasswordCheckLimits(
  db: Database,
  projectId: string,
  account: string,
  clientIp: string | null | undefined,
): Promise<void> {
  const accountFromIp = clientIp ? `${account}|${clientIp}` : account;
  await consumeRateLimit(db, RATE_LIMITS.signInPerAccountFromIp, projectId, accountFromIp);
  await consumeRateLimit(db, RATE_LIMITS.signInPerAccount, projectId, account);
}
