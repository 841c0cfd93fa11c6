import { and, desc, eq, or, sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { isUuid } from "../../fields/ids.ts";
import { sentEmails } from "./schema.ts";

/**
 * The latest emails to one user or address, newest first, as delivery facts only (kind, redacted subject, status,
 * errors): what the AI helper reads to explain why a code or link never arrived. Never the bodies.
 */
export async function recentEmailsTo(
  db: Database,
  projectId: string,
  to: { userId?: string | undefined; email?: string | undefined },
  limit = 10,
) {
  const matches = [];
  if (to.userId && isUuid(to.userId)) matches.push(eq(sentEmails.userId, to.userId));
  if (to.email) matches.push(sql`${sentEmails.to} @> ${JSON.stringify([to.email])}::jsonb`);
  if (matches.length === 0) return [];
  const rows = await db
    .select()
    .from(sentEmails)
    .where(and(eq(sentEmails.projectId, projectId), or(...matches)))
    .orderBy(desc(sentEmails.createdAt))
    .limit(limit);
  return rows.map((row) => ({
    kind: row.kind,
    subject: row.subject,
    status: row.status,
    is_paused: row.isPaused,
    error: row.error ?? row.renderError ?? null,
    skipped_reason: row.skippedReason ?? null,
    attempts: row.attempts,
    created_at: row.createdAt.toISOString(),
    sent_at: row.sentAt?.toISOString() ?? null,
  }));
}
