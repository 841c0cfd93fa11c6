import { and, desc, eq } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { isUuid } from "../../fields/ids.ts";
import { events } from "./schema.ts";

/**
 * The latest events about one user (webhook events and activity such as `$sign-in` and `$sign-up-rule-trigger`),
 * newest first: what the AI helper reads to explain a sign-in problem. Reads the project's events of that user.
 */
export async function recentEventsOfUser(db: Database, projectId: string, userId: string, limit = 20) {
  if (!isUuid(userId)) return [];
  const rows = await db
    .select({ type: events.type, data: events.data, occurredAt: events.occurredAt })
    .from(events)
    .where(and(eq(events.projectId, projectId), eq(events.userId, userId)))
    .orderBy(desc(events.seq))
    .limit(limit);
  return rows.map((row) => ({ type: row.type, data: row.data, occurred_at: row.occurredAt.toISOString() }));
}
