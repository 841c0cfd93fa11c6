/**
 * A queue table whose rows workers claim under a lease: the one claim, fence and hand-back that every queue uses.
 *
 * - Claim: the due rows are locked `FOR UPDATE SKIP LOCKED`, so any number of workers (in one process or many) can
 *   run on one database and each row is claimed by exactly one of them. A claim sets the claimed status, counts an
 *   attempt and moves `next_attempt_at` forward by the lease: a worker that dies mid-work leaves a row that is due
 *   again once its lease runs out (work is done at least once).
 * - Fence: an outcome is written only while the worker still holds the claim (same status and attempt number), so
 *   a worker that lost its lease cannot overwrite the outcome of the worker that took over.
 * - Hand-back: a stopping worker makes the rows it still holds due now, for another instance, instead of after the
 *   lease. Unsent, the claim is taken back (not counted as an attempt); possibly sent (cut short), it counts.
 */
import { and, eq, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable, PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Database } from "../db/index.ts";
import { notifyWorkersAtCommit, type WorkQueue } from "./work-notices.ts";

type LeasedTable = PgTable & {
  id: PgColumn;
  projectId: PgColumn;
  status: PgColumn;
  attempts: PgColumn;
  nextAttemptAt: PgColumn;
};

type Row = { id: string; projectId: string; attempts: number };

/** `now()` plus `ms`, in the database's clock (every instance compares leases with it, never with its own). */
export const inMs = (ms: number): SQL => sql`now() + ${`${Math.round(ms)} milliseconds`}::interval`;

export type LeasedQueue<T extends LeasedTable> = {
  /** Claims up to `limit` due rows, most urgent first by `orderBy`, and returns them as claimed. */
  claim: (options: {
    limit: number;
    leaseMs: number;
    orderBy: (PgColumn | SQL)[];
    /** Narrows what is due (the outbox skips paused messages). */
    where?: SQL;
    /** More columns to set on claim. */
    set?: PgUpdateSetSource<T>;
  }) => Promise<T["$inferSelect"][]>;
  /** Writes the outcome of a claimed row, only while this worker still holds the claim. */
  finish: (row: Row, values: PgUpdateSetSource<T>) => Promise<unknown>;
  /** Makes a claimed row due again now (see the file's comment). */
  handBack: (row: Row, options: { unsent: boolean }) => Promise<unknown>;
  /** Runs `work` with `rows` held: what `handBackHeld` gives back if the worker stops before it ends. */
  holding: <R>(rows: Row[], work: () => Promise<R>) => Promise<R>;
  /** Hands back every row still held, as possibly sent. */
  handBackHeld: () => Promise<void>;
  /**
   * Milliseconds until the next row falls due (a retry, a lease running out), by the database's clock; null when
   * none waits. `where` narrows it as it narrows `claim`.
   */
  nextDueInMs: (where?: SQL) => Promise<number | null>;
};

/** The wait until the earliest of `dueAt` (a timestamp expression), in milliseconds by the database's clock. */
export async function msUntilEarliest(db: Database, table: PgTable, dueAt: SQL, where: SQL | undefined) {
  const [row] = await db
    .select({ ms: sql<string | null>`extract(epoch from min(${dueAt}) - now()) * 1000` })
    .from(table)
    .where(where);
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, Number(row.ms));
}

export function leasedQueue<T extends LeasedTable>(
  db: Database,
  table: T,
  statuses: {
    /** Statuses a row may be claimed in, once due (the claimed status included: an expired lease is due). */
    due: string[];
    claimed: string;
    /** The status of a row waiting its turn, which a hand-back restores. */
    waiting: string;
  },
  options: {
    /** Columns set on every claim and outcome (the outbox's `updated_at`). */
    touch?: () => PgUpdateSetSource<T>;
    /**
     * The queue whose workers a hand-back wakes: a stopping instance's rows are due now, and the other instances'
     * workers would otherwise find them only at their backstop (work-notices.ts).
     */
    queue?: WorkQueue;
  } = {},
): LeasedQueue<T> {
  const touch = options.touch ?? (() => ({}));
  const held = new Set<Row>();
  // Drizzle's builders are typed per table; this module works on any table with the columns above.
  const anyDb = db as unknown as {
    select: Database["select"];
    update: (table: PgTable) => {
      set: (values: unknown) => {
        where: (where: SQL | undefined) => Promise<unknown> & { returning: () => Promise<unknown[]> };
      };
    };
  };

  const finish = (row: Row, values: PgUpdateSetSource<T>) =>
    anyDb
      .update(table)
      .set({ ...values, ...touch() })
      .where(
        and(
          eq(table.projectId, row.projectId),
          eq(table.id, row.id),
          eq(table.status, statuses.claimed),
          eq(table.attempts, row.attempts),
        ),
      );

  const wakeOthers = async () => {
    if (options.queue) await db.execute(sql`select ${notifyWorkersAtCommit(options.queue)}`);
  };

  const makeDueNow = (row: Row, { unsent }: { unsent: boolean }) =>
    finish(row, {
      status: statuses.waiting,
      nextAttemptAt: sql`now()`,
      ...(unsent ? { attempts: sql`${table.attempts} - 1` } : {}),
    } as PgUpdateSetSource<T>);

  const handBack = async (row: Row, handBackOptions: { unsent: boolean }) => {
    await makeDueNow(row, handBackOptions);
    await wakeOthers();
  };

  return {
    claim: async ({ limit, leaseMs, orderBy, where, set }) => {
      const due = anyDb
        .select({ id: table.id })
        .from(table as PgTable)
        .where(and(inArray(table.status, statuses.due), lte(table.nextAttemptAt, sql`now()`), where))
        .orderBy(...orderBy)
        .limit(limit)
        .for("update", { skipLocked: true });
      return (await anyDb
        .update(table)
        .set({
          status: statuses.claimed,
          attempts: sql`${table.attempts} + 1`,
          nextAttemptAt: inMs(leaseMs),
          ...set,
          ...touch(),
        })
        .where(inArray(table.id, due))
        .returning()) as T["$inferSelect"][];
    },
    finish,
    handBack,
    holding: async (rows, work) => {
      for (const row of rows) held.add(row);
      try {
        return await work();
      } finally {
        for (const row of rows) held.delete(row);
      }
    },
    handBackHeld: async () => {
      if (held.size === 0) return;
      await Promise.all([...held].map((row) => makeDueNow(row, { unsent: false }).catch(() => {})));
      await wakeOthers().catch(() => {});
    },
    nextDueInMs: (where) =>
      msUntilEarliest(
        db,
        table,
        sql`${table.nextAttemptAt}`,
        and(inArray(table.status, statuses.due), where),
      ),
  };
}
