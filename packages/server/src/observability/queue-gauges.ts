import { sql } from "drizzle-orm";
import type { Database } from "../db/index.ts";
import type { GatehouseMetrics } from "./metrics.ts";

type QueueRow = { queue: string; depth: number | string; oldest_due_seconds: number | string | null };

/**
 * One statement per scrape. Each branch reads only its table's partial "due" index (sent_emails_render_due_idx,
 * sent_emails_due_idx, webhook_deliveries_due_idx), whose rows are exactly the waiting ones, so the cost follows
 * the backlog, not the table. The oldest age is how long the longest-due message has waited past its due time:
 * rows scheduled for a later retry count in the depth but are not late.
 */
const QUEUES = sql`
  select 'email' as queue, count(*) as depth,
    extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now())) as oldest_due_seconds
  from (
    select next_attempt_at from sent_emails where status in ('preparing', 'rendering')
    union all
    select next_attempt_at from sent_emails where status in ('queued', 'sending')
  ) as waiting
  union all
  select 'webhook', count(*),
    extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now()))
  from webhook_deliveries where status in ('pending', 'sending')`;

/** Queue depth and oldest age of the email outbox and webhook deliveries, read from the database when scraped. */
export function observeQueues(metrics: GatehouseMetrics, db: Database): void {
  let reading: Promise<QueueRow[]> | null = null;
  // Both gauges come from one statement; a scrape collects them together, so they share the read.
  const read = () => {
    reading ??= db.execute(QUEUES).then(
      (result) => rowsOf(result),
      // A scrape while the database is away reports the gauges empty rather than failing the whole scrape.
      () => [],
    );
    const current = reading;
    void current.finally(() => {
      if (reading === current) reading = null;
    });
    return current;
  };
  metrics.gaugeAtScrape(
    "queue_depth",
    "Messages waiting in a delivery queue (email outbox, webhook deliveries), retries included",
    ["queue"],
    async (set) => {
      for (const row of await read()) set({ queue: row.queue }, Number(row.depth));
    },
  );
  metrics.gaugeAtScrape(
    "queue_oldest_age_seconds",
    "How long the longest-waiting due message of a delivery queue has been due (0 when none is)",
    ["queue"],
    async (set) => {
      for (const row of await read())
        set({ queue: row.queue }, Math.max(0, Number(row.oldest_due_seconds ?? 0)));
    },
  );
}

/** node-postgres gives `{ rows }`, PGlite gives `{ rows }` too; both behind Drizzle's `execute`. */
function rowsOf(result: unknown): QueueRow[] {
  const rows = (result as { rows?: QueueRow[] }).rows;
  return Array.isArray(rows) ? rows : (result as QueueRow[]);
}
