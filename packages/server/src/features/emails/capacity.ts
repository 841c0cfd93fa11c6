/**
 * Delivery stats and sending capacity (PROTOCOL-EXTRA §1.10). A project may send `hourly × boost` emails in any
 * hour: the base (env `GATEHOUSE_EMAIL_CAPACITY_PER_HOUR`), grown by what it sent in the last month, lowered by
 * bounces and spam reports, times four while a capacity boost runs. The numbers `GET /emails/delivery-info` reports
 * are the ones the outbox worker obeys: after each claim it keeps what fits the project's budget for the last hour
 * and hands the rest back to the queue until a slot frees (`withinCapacity`).
 */
import type { WireEmailDeliveryInfo, WireEmailWindowStats } from "@gatehouse/shared";
import { and, eq, gt, inArray, lte, min, sql } from "drizzle-orm";
import { randomUuid } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { DEFAULT_EMAIL_CAPACITY_PER_HOUR } from "../../env.ts";
import { emailCapacityBoosts, type SentEmailRow, sentEmails } from "./schema.ts";

const HOUR_MS = 3_600_000;
export const BOOST_MULTIPLIER = 4;
export const BOOST_DURATION_MS = 4 * HOUR_MS;
/** How long a held-back email waits when nothing sent in the last hour is about to free a slot (all in flight). */
const RECHECK_MS = 60_000;

const WINDOWS = { hour: "1 hour", day: "1 day", week: "7 days", month: "30 days" } as const;
type WindowName = keyof typeof WINDOWS;
type WindowStats = WireEmailWindowStats;
export type DeliveryInfo = WireEmailDeliveryInfo;

const sentSince = (interval: string) =>
  sql<number>`count(*) filter (where ${sentEmails.sentAt} > now() - ${interval}::interval)`.mapWith(Number);

/** Emails sent per window: rows that reached `sent` (failed and skipped rows never do). */
async function sentCounts(deps: AppDeps, projectId: string): Promise<Record<WindowName, number>> {
  const [row] = await deps.db
    .select({
      hour: sentSince(WINDOWS.hour),
      day: sentSince(WINDOWS.day),
      week: sentSince(WINDOWS.week),
      month: sentSince(WINDOWS.month),
    })
    .from(sentEmails)
    .where(
      and(
        eq(sentEmails.projectId, projectId),
        eq(sentEmails.status, "sent"),
        gt(sentEmails.sentAt, sql`now() - ${WINDOWS.month}::interval`),
      ),
    );
  return { hour: row?.hour ?? 0, day: row?.day ?? 0, week: row?.week ?? 0, month: row?.month ?? 0 };
}

/** The running boost's end, if one runs. */
async function activeBoostExpiry(deps: AppDeps, projectId: string): Promise<Date | null> {
  const [row] = await deps.db
    .select({ expiresAt: min(emailCapacityBoosts.expiresAt) })
    .from(emailCapacityBoosts)
    .where(and(eq(emailCapacityBoosts.projectId, projectId), gt(emailCapacityBoosts.expiresAt, sql`now()`)));
  return row?.expiresAt ?? null;
}

/** `clamp(1 − (bounced + 50·spam) / sent, 0.1, 1)`, and 1 with nothing sent. */
function penalty(stats: WindowStats): number {
  if (stats.sent === 0) return 1;
  const factor = 1 - (stats.bounced + 50 * stats.marked_as_spam) / stats.sent;
  return Math.min(1, Math.max(0.1, factor));
}

type Capacity = { info: DeliveryInfo; emailsPerHour: number };

async function capacityOf(deps: AppDeps, projectId: string): Promise<Capacity> {
  const base = deps.env.emailCapacityPerHour ?? DEFAULT_EMAIL_CAPACITY_PER_HOUR;
  const [sent, boostExpiry] = await Promise.all([
    sentCounts(deps, projectId),
    activeBoostExpiry(deps, projectId),
  ]);
  // SMTP reports neither bounces nor spam complaints (a bounce comes back later as mail to the sender's mailbox),
  // so these are always 0 and the penalty stays 1; the formulas keep them for a transport that reports them.
  const stats = Object.fromEntries(
    (Object.keys(WINDOWS) as WindowName[]).map((name) => [
      name,
      { sent: sent[name], bounced: 0, marked_as_spam: 0 },
    ]),
  ) as Record<WindowName, WindowStats>;
  const penaltyFactor = Math.min(penalty(stats.hour), penalty(stats.day), penalty(stats.week));
  const hourly = Math.max((base + (4 * stats.month.sent) / 720) * penaltyFactor, base / 4);
  const boost = boostExpiry ? BOOST_MULTIPLIER : 1;
  return {
    info: {
      stats,
      capacity: {
        rate_per_second: (hourly / 3600) * boost,
        boost_multiplier: boost,
        penalty_factor: penaltyFactor,
        is_boost_active: boostExpiry !== null,
        boost_expires_at: boostExpiry?.toISOString() ?? null,
      },
    },
    // At least one an hour, so a project is never stuck however small its numbers.
    emailsPerHour: Math.max(1, Math.floor(hourly * boost)),
  };
}

export async function deliveryInfo(deps: AppDeps, projectId: string): Promise<DeliveryInfo> {
  return (await capacityOf(deps, projectId)).info;
}

/**
 * Starts a boost for four hours, or returns the running one's end (`active`). The project's row is locked, so two
 * requests at once start one boost. Emails held back for capacity become due at once.
 */
export async function activateBoost(
  deps: AppDeps,
  projectId: string,
): Promise<{ started: boolean; expiresAt: Date }> {
  const result = await deps.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`email-capacity-boost:${projectId}`}))`);
    const [running] = await tx
      .select({ expiresAt: emailCapacityBoosts.expiresAt })
      .from(emailCapacityBoosts)
      .where(
        and(eq(emailCapacityBoosts.projectId, projectId), gt(emailCapacityBoosts.expiresAt, sql`now()`)),
      );
    if (running) return { started: false, expiresAt: running.expiresAt };
    const [created] = await tx
      .insert(emailCapacityBoosts)
      .values({
        projectId,
        id: randomUuid(),
        expiresAt: sql`now() + ${`${BOOST_DURATION_MS} milliseconds`}::interval`,
      })
      .returning({ expiresAt: emailCapacityBoosts.expiresAt });
    return { started: true, expiresAt: created!.expiresAt };
  });
  if (result.started) {
    // Rows held back only for capacity: queued, never attempted, due by their schedule but not by next_attempt_at.
    await deps.db
      .update(sentEmails)
      .set({ nextAttemptAt: sql`now()`, updatedAt: sql`now()` })
      .where(
        and(
          eq(sentEmails.projectId, projectId),
          eq(sentEmails.status, "queued"),
          eq(sentEmails.attempts, 0),
          eq(sentEmails.isPaused, false),
          lte(sentEmails.scheduledAt, sql`now()`),
          gt(sentEmails.nextAttemptAt, sql`now()`),
        ),
      );
    deps.emailWorker?.wake();
  }
  return result;
}

/** How many more emails the project may send now, not counting `claimed` (the rows being decided on). */
async function budgetLeft(deps: AppDeps, projectId: string, claimed: readonly string[]): Promise<number> {
  const [{ emailsPerHour, info }, [inFlight]] = await Promise.all([
    capacityOf(deps, projectId),
    deps.db
      .select({ count: sql<number>`count(*)`.mapWith(Number) })
      .from(sentEmails)
      .where(
        and(
          eq(sentEmails.projectId, projectId),
          eq(sentEmails.status, "sending"),
          sql`${sentEmails.id} not in (${sql.join(
            claimed.map((id) => sql`${id}::uuid`),
            sql`, `,
          )})`,
        ),
      ),
  ]);
  return emailsPerHour - info.stats.hour.sent - (inFlight?.count ?? 0);
}

/** When the next slot frees: the oldest send of the last hour turns an hour old. */
async function nextSlotAt(deps: AppDeps, projectId: string): Promise<Date> {
  const [row] = await deps.db
    .select({ oldest: min(sentEmails.sentAt) })
    .from(sentEmails)
    .where(
      and(
        eq(sentEmails.projectId, projectId),
        eq(sentEmails.status, "sent"),
        gt(sentEmails.sentAt, sql`now() - interval '1 hour'`),
      ),
    );
  return row?.oldest ? new Date(row.oldest.getTime() + HOUR_MS) : new Date(Date.now() + RECHECK_MS);
}

/**
 * The worker's capacity check, between claiming a batch and sending it: per project, high-priority rows and the
 * rows that fit its budget for the last hour (highest priority first) are returned to send; the others go back to `queued`, due when the
 * next slot frees. Handing back is not a failed attempt: the claim's attempt is taken back. Rows in flight on other
 * workers count against the budget, so two workers deciding at once may hold back too much, never send too much.
 */
export async function withinCapacity(deps: AppDeps, claimed: SentEmailRow[]): Promise<SentEmailRow[]> {
  const byProject = new Map<string, SentEmailRow[]>();
  for (const row of claimed) byProject.set(row.projectId, [...(byProject.get(row.projectId) ?? []), row]);
  const kept: SentEmailRow[] = [];
  for (const [projectId, rows] of byProject) {
    // High-priority email (the built-in sign-in, verification and reset emails) is never held back: a marketing
    // send must not keep a user from signing in for an hour. It counts against the budget all the same.
    const urgent = rows.filter((row) => row.isHighPriority);
    kept.push(...urgent);
    const others = rows.filter((row) => !row.isHighPriority);
    if (others.length === 0) continue;
    const ids = rows.map((row) => row.id);
    const budget = Math.max(0, (await budgetLeft(deps, projectId, ids)) - urgent.length);
    const ordered = [...others].sort(
      (a, b) => b.priority - a.priority || a.createdAt.getTime() - b.createdAt.getTime(),
    );
    kept.push(...ordered.slice(0, budget));
    const held = ordered.slice(budget);
    if (held.length === 0) continue;
    await deps.db
      .update(sentEmails)
      .set({
        status: "queued",
        attempts: sql`${sentEmails.attempts} - 1`,
        nextAttemptAt: await nextSlotAt(deps, projectId),
        // The claim stamped it; a row never attempted before has not started sending.
        startedSendingAt: sql`case when ${sentEmails.attempts} = 1 then null else ${sentEmails.startedSendingAt} end`,
        updatedAt: sql`now()`,
      })
      .where(
        and(
          eq(sentEmails.projectId, projectId),
          inArray(
            sentEmails.id,
            held.map((row) => row.id),
          ),
          eq(sentEmails.status, "sending"),
        ),
      );
  }
  return kept;
}
