/**
 * `email_overview` (PROTOCOL-EXTRA §4.1) from the `sent_emails` outbox, over the metrics window: one grouped range
 * scan of `sent_emails_project_created_idx` by day and stored status, and the 100 newest rows of the same index.
 * Statuses are the outbox's own (outbox-view.ts): `ok` / `error` / `in-progress` as its simple statuses say.
 * SMTP reports neither bounces nor clicks, so those stay 0.
 */
import { and, desc, eq, gte, sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { outboxStatus, type SimpleStatus, simpleStatus } from "../emails/outbox-view.ts";
import { type SentEmailRow, sentEmails } from "../emails/schema.ts";
import { type MetricsWindow, percentage, series } from "./window.ts";

export const RECENT_EMAILS_LIMIT = 100;

/** The simple status of rows with this stored status and pause flag (scheduled and queued are both in progress). */
function simpleStatusOf(status: SentEmailRow["status"], isPaused: boolean): SimpleStatus {
  // outboxStatus reads only these three fields of a row.
  const row = { status, isPaused, scheduledAt: new Date(0) } as SentEmailRow;
  return simpleStatus(outboxStatus(row));
}

export async function emailMetrics(db: Database, projectId: string, window: MetricsWindow) {
  const day = sql<string>`to_char(${sentEmails.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const inWindow = and(eq(sentEmails.projectId, projectId), gte(sentEmails.createdAt, window.start));
  const [groups, recent] = await Promise.all([
    db
      .select({
        day,
        status: sentEmails.status,
        isPaused: sentEmails.isPaused,
        count: sql<number>`count(*)::int`,
      })
      .from(sentEmails)
      .where(inWindow)
      .groupBy(day, sentEmails.status, sentEmails.isPaused),
    db
      .select({
        id: sentEmails.id,
        status: sentEmails.status,
        subject: sentEmails.subject,
        createdAt: sentEmails.createdAt,
      })
      .from(sentEmails)
      .where(eq(sentEmails.projectId, projectId))
      .orderBy(desc(sentEmails.createdAt), desc(sentEmails.id))
      .limit(RECENT_EMAILS_LIMIT),
  ]);

  const bySimple: Record<SimpleStatus, number> = { ok: 0, error: 0, "in-progress": 0 };
  const perDay = new Map<string, { ok: number; error: number; in_progress: number }>();
  let delivered = 0;
  let failedDelivery = 0;
  let renderErrors = 0;
  for (const group of groups) {
    const count = Number(group.count);
    const simple = simpleStatusOf(group.status, group.isPaused);
    bySimple[simple] += count;
    const dayCounts = perDay.get(group.day) ?? { ok: 0, error: 0, in_progress: 0 };
    if (simple === "in-progress") dayCounts.in_progress += count;
    else dayCounts[simple] += count;
    perDay.set(group.day, dayCounts);
    if (group.status === "sent") delivered += count;
    if (group.status === "failed") failedDelivery += count;
    if (group.status === "render_error" && !group.isPaused) renderErrors += count;
  }
  // Finished sending: delivered, or given up after the last attempt.
  const emailsSent = delivered + failedDelivery;
  const bounced = 0;
  const clicked = 0;
  const total = bySimple.ok + bySimple.error + bySimple["in-progress"];
  return {
    emails_by_status: Object.fromEntries(Object.entries(bySimple).filter(([, count]) => count > 0)),
    total_emails: total,
    daily_emails: series(
      window,
      new Map([...perDay].map(([date, counts]) => [date, counts.ok + counts.error + counts.in_progress])),
    ),
    daily_emails_by_status: window.days.map((date) => ({
      date,
      ...(perDay.get(date) ?? { ok: 0, error: 0, in_progress: 0 }),
    })),
    emails_sent: emailsSent,
    recent_emails: recent.map((row) => ({
      id: row.id,
      status: row.status.toUpperCase(),
      subject: row.subject === "" ? "(no subject)" : row.subject,
      created_at_millis: row.createdAt.getTime(),
    })),
    deliverability_status: {
      delivered,
      bounced,
      error: failedDelivery + renderErrors,
      in_progress: bySimple["in-progress"],
    },
    deliverability_rate: percentage(delivered, emailsSent),
    bounce_rate: percentage(bounced, emailsSent),
    click_rate: percentage(clicked, emailsSent),
  };
}
