import { eq, lt, sql } from "drizzle-orm";
import type { RenderedConfig } from "../config/index.ts";
import type { Database } from "../db/index.ts";
import { preparedSql } from "../db/prepared-sql.ts";
import { isLoopbackAddress } from "../http/client-ip.ts";
import { StatusError } from "../http/status-error.ts";
import { MAX_WINDOW_SECONDS, type RateLimitRule } from "./rules.ts";
import { rateLimitCounters } from "./schema.ts";

/**
 * What every limit of one request depends on: the project (its counters and its configured numbers) and who calls
 * (a loopback caller of a development server gets generous limits). Built once per request by `rateLimitScope`.
 */
export type RateLimitScope = {
  db: Database;
  projectId: string;
  config: Pick<RenderedConfig, "gatehouse">;
  /** The caller's address as the server sees it (behind proxies: GATEHOUSE_TRUST_PROXY). */
  clientIp: string | null;
  isDevelopment: boolean;
  /** Hears each refusal, by rule id (the rate-limit refusals metric). */
  onRefused?: (ruleId: string) => void;
};

export function rateLimitScope(
  deps: {
    db: Database;
    env: { isDevelopment: boolean };
    observability?: { metrics: { rateLimitRefused: (ruleId: string) => void } };
  },
  auth: { project: { id: string }; config: Pick<RenderedConfig, "gatehouse"> },
  clientIp: string | null,
): RateLimitScope {
  return {
    db: deps.db,
    projectId: auth.project.id,
    config: auth.config,
    clientIp,
    isDevelopment: deps.env.isDevelopment,
    ...(deps.observability
      ? { onRefused: (ruleId) => deps.observability!.metrics.rateLimitRefused(ruleId) }
      : {}),
  };
}

/** The numbers that apply to `rule` in this scope: the project's own, then the development loopback factor. */
export function effectiveRule(scope: RateLimitScope, rule: RateLimitRule): RateLimitRule {
  const configured = scope.config.gatehouse.rateLimits[rule.id];
  const factor =
    scope.isDevelopment && isLoopbackAddress(scope.clientIp)
      ? scope.config.gatehouse.developmentLoopbackRateLimitFactor
      : 1;
  return {
    ...rule,
    limit: (configured?.limit ?? rule.limit) * factor,
    windowSeconds: Math.min(configured?.windowSeconds ?? rule.windowSeconds, MAX_WINDOW_SECONDS),
  };
}

export type CountedAttempt = {
  key: string;
  /** Attempts in the current window, this one included. */
  count: number;
  windowStart: Date;
  windowEndsAt: Date;
  now: Date;
};

/** What a counter needs of a rule: its name (part of the key) and its window. */
type CounterRule = Pick<RateLimitRule, "name" | "windowSeconds">;

export function counterKey(scope: RateLimitScope, rule: CounterRule, subject: string): string {
  return `${scope.projectId}:${rule.name}:${subject.toLowerCase()}`;
}

/** One attempt to count: a rule (its name and window) and who or what it is about. */
export type AttemptToCount = { rule: CounterRule; subject: string };

/**
 * Counts one attempt in the counter of `rule` and `subject`. One upsert, so parallel attempts are counted exactly,
 * across instances too: when the stored window has ended, the same statement starts a new one at this attempt
 * (count 1, and the slow lane of password-checks.ts cleared), otherwise it adds one.
 */
export async function countAttempt(
  scope: RateLimitScope,
  rule: CounterRule,
  subject: string,
): Promise<CountedAttempt> {
  const [attempt] = await countAttempts(scope, [{ rule, subject }]);
  return attempt!;
}

/**
 * The upsert of `countAttempts`, prepared once: one row per key, the keys and their windows as arrays. When the
 * stored window has ended (it started at or before `ended_if_before`), the attempt starts a new one at count 1 and
 * clears the slow lane of password-checks.ts; otherwise it adds one.
 */
const countStatement = preparedSql<
  { keys: string[]; endedIfBefore: string[]; now: string },
  { key: string; count: number; window_start: Date | string }
>(
  "count_attempts",
  sql`with counted as (
      select * from unnest(${sql.placeholder("keys")}::text[], ${sql.placeholder("endedIfBefore")}::timestamptz[])
        as counted(key, ended_if_before))
    insert into ${rateLimitCounters} as c (key, window_start, count)
    select key, ${sql.placeholder("now")}::timestamptz, 1 from counted
    on conflict (key) do update set (count, window_start, slow_passes, slow_next_at) = (
      select case when ended then 1 else c.count + 1 end,
        case when ended then excluded.window_start else c.window_start end,
        case when ended then 0 else c.slow_passes end,
        case when ended then null else c.slow_next_at end
      from (select c.window_start <= counted.ended_if_before as ended
        from counted where counted.key = excluded.key) as window_state)
    returning c.key, c.count, c.window_start`,
);

/**
 * `countAttempt` for several counters in one statement (a sign-in's per-address and per-account-and-address limits),
 * in the order given. The counters must be distinct: one statement cannot update a row twice.
 */
export async function countAttempts(
  scope: RateLimitScope,
  attempts: readonly AttemptToCount[],
): Promise<CountedAttempt[]> {
  const now = new Date();
  const counted = attempts.map(({ rule, subject }) => ({
    key: counterKey(scope, rule, subject),
    windowMs: rule.windowSeconds * 1000,
  }));
  const rows = await countStatement(scope.db, {
    keys: counted.map(({ key }) => key),
    // A stored window that started at or before this instant has ended; each counter's rule has its own window.
    endedIfBefore: counted.map(({ windowMs }) => new Date(now.getTime() - windowMs).toISOString()),
    now: now.toISOString(),
  });
  // Ended windows are useless; sweep now and then instead of running a job. No window lasts over a day.
  if (Math.random() < 0.01) {
    await scope.db
      .delete(rateLimitCounters)
      .where(lt(rateLimitCounters.windowStart, new Date(now.getTime() - MAX_WINDOW_SECONDS * 1000)));
  }
  const byKey = new Map(rows.map((row) => [row.key, row]));
  return counted.map(({ key, windowMs }) => {
    const row = byKey.get(key);
    const windowStart = row ? new Date(row.window_start) : now;
    return {
      key,
      count: row?.count ?? 1,
      windowStart,
      windowEndsAt: new Date(windowStart.getTime() + windowMs),
      now,
    };
  });
}

/**
 * A 429 whose Retry-After is the time until a retry can pass, rounded up to whole seconds: never longer, so a
 * client that sleeps inside a request (as the SDKs do) waits no more than it must.
 */
export function tooManyAttempts(now: Date, retryAt: Date): StatusError {
  const retryAfter = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
  return new StatusError(429, `Too many attempts. Please wait ${retryAfter} seconds and try again.`, {
    "retry-after": String(retryAfter),
  });
}

/**
 * Counts one attempt against `rule` for `subject` and throws a 429 with Retry-After once the window is full.
 * Without a subject (e.g. no known client address) nothing is counted.
 */
export async function consumeRateLimit(
  scope: RateLimitScope,
  rule: RateLimitRule,
  subject: string | null | undefined,
): Promise<void> {
  await consumeRateLimits(scope, [{ rule, subject }]);
}

/**
 * `consumeRateLimit` for several rules in one statement; the first full window (in the order given) answers. The
 * attempt counts in every listed counter, also in those after a full one.
 */
export async function consumeRateLimits(
  scope: RateLimitScope,
  limits: readonly { rule: RateLimitRule; subject: string | null | undefined }[],
): Promise<void> {
  const effective = limits.flatMap(({ rule, subject }) =>
    subject ? [{ rule: effectiveRule(scope, rule), subject }] : [],
  );
  if (effective.length === 0) return;
  const attempts = await countAttempts(scope, effective);
  for (const [index, attempt] of attempts.entries()) {
    if (attempt.count > effective[index]!.rule.limit) {
      scope.onRefused?.(effective[index]!.rule.id);
      throw tooManyAttempts(attempt.now, attempt.windowEndsAt);
    }
  }
}

/**
 * Throws the 429 that the next `consumeRateLimit` of `rule` and `subject` would, without counting anything: for a
 * request that will count its attempts later, one by one (an AI question's tool calls), and should not start at
 * all while the window is full.
 */
export async function refuseWhileLimitReached(
  scope: RateLimitScope,
  rule: RateLimitRule,
  subject: string,
): Promise<void> {
  const effective = effectiveRule(scope, rule);
  const [row] = await scope.db
    .select({ count: rateLimitCounters.count, windowStart: rateLimitCounters.windowStart })
    .from(rateLimitCounters)
    .where(eq(rateLimitCounters.key, counterKey(scope, effective, subject)));
  if (!row || row.count < effective.limit) return;
  const now = new Date();
  const windowEndsAt = new Date(row.windowStart.getTime() + effective.windowSeconds * 1000);
  if (windowEndsAt <= now) return;
  scope.onRefused?.(effective.id);
  throw tooManyAttempts(now, windowEndsAt);
}
