/**
 * Notices between instances: "project X changed, drop what you cached of it". Each notice is sent twice, in the
 * sender's transaction: as a `pg_notify` (delivered to every LISTENing connection when the transaction commits) and
 * as a row of `change_notices`. The row is for instances that cannot LISTEN: behind a transaction pooler a LISTEN
 * lives on whichever server connection ran it, which the pooler hands to other clients next. Such an instance
 * polls the table instead (`pollNotices`), which bounds how stale its caches get by the poll interval.
 */
import { sql } from "drizzle-orm";
import type { Database } from "./handle.ts";
import { changeNotices } from "./notices-schema.ts";

/** Sends a notice on `channel`, delivered once `db`'s transaction commits (with it, if `db` is a transaction). */
export async function sendNotice(db: Database, channel: string, payload: string): Promise<void> {
  await db.execute(
    sql`insert into ${changeNotices} (channel, payload) values (${channel}, ${payload}) returning pg_notify(${channel}, ${payload})`,
  );
}

/**
 * A transaction may insert its notice and commit later, after a poll that already read past the notice's id. So a
 * poll reads every notice sent in the last LOOKBACK, not only those after the last id, and remembers which it
 * handled. A notice whose transaction stays open longer than this is missed (a change to a project is one short
 * transaction). Notices older than KEEP are deleted by the pollers.
 */
const LOOKBACK_MS = 60_000;
const KEEP_MS = 10 * 60_000;

export type NoticePoller = { stop: () => Promise<void> };

/**
 * Polls `change_notices` for `channel` every `intervalMs` and hands each new payload to `onNotify`. The first poll
 * runs before this resolves and only takes note of what is there: the caller has cached nothing yet. A failed
 * poll (the database restarting) calls `onGap`, since notices may be missed while it is away.
 */
export async function pollNotices(
  db: Database,
  channel: string,
  intervalMs: number,
  onNotify: (payload: string) => void,
  onGap: () => void,
): Promise<NoticePoller> {
  /** Ids handled, with when they were sent (the database's clock, in ms), dropped once past the lookback. */
  const handled = new Map<number, number>();
  let lastPollAt: number | null = null;
  let failing = false;

  const poll = async (announce: boolean) => {
    const since = lastPollAt === null ? null : new Date(lastPollAt - LOOKBACK_MS);
    const result = (await db.execute(
      sql`select n.id, n.payload, n.sent_at, clock_timestamp() as now
          from (select clock_timestamp()) as c
          left join ${changeNotices} as n
            on n.channel = ${channel} and (${since}::timestamptz is null or n.sent_at > ${since}::timestamptz)
          order by n.id`,
    )) as unknown as {
      rows: { id: string | number | null; payload: string; sent_at: string; now: string }[];
    };
    const rows = result.rows;
    const now = Date.parse(String(rows[0]?.now));
    for (const row of rows) {
      if (row.id === null || row.id === undefined) continue;
      const id = Number(row.id);
      if (handled.has(id)) continue;
      handled.set(id, Date.parse(String(row.sent_at)));
      if (announce) onNotify(row.payload);
    }
    for (const [id, sentAt] of handled) if (sentAt < now - 2 * LOOKBACK_MS) handled.delete(id);
    lastPollAt = now;
  };

  let pruneCountdown = 0;
  const prune = async () => {
    // SKIP LOCKED: instances pruning at the same moment take disjoint rows instead of waiting on each other.
    await db.execute(
      sql`delete from ${changeNotices} where id in (
            select id from ${changeNotices} where sent_at < clock_timestamp() - ${`${KEEP_MS} milliseconds`}::interval
            for update skip locked)`,
    );
  };

  await poll(false);
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(async () => {
      if (stopped) return;
      try {
        await poll(true);
        if (failing) onGap();
        failing = false;
        if (--pruneCountdown <= 0) {
          pruneCountdown = Math.ceil(60_000 / intervalMs);
          await prune();
        }
      } catch {
        failing = true;
      }
    });
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
