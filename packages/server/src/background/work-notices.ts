/**
 * Wake-ups for the queues' workers across instances. Work is queued in a transaction (an event written with the
 * change that fired it); a `pg_notify` on WORK_CHANNEL in that same transaction is delivered when it commits, to
 * every instance's LISTEN connection, whose worker then looks at once. A stopping instance's hand-back notifies
 * too (leased-queue.ts), so its rows do not wait for the others' backstop. So workers need no short poll: their timer
 * is a backstop (IDLE_BACKSTOP_MS) and an idle instance sends no statement.
 *
 * Behind a transaction pooler with no direct URL nothing hears a plain NOTIFY (db/notices.ts polls a table there);
 * such an instance keeps its workers' short polls (`DatabaseHandle.hearsNotify`).
 */
import { type SQL, sql } from "drizzle-orm";
import type { DatabaseHandle } from "../db/handle.ts";

export const WORK_CHANNEL = "gatehouse_work";

/** The queues a notice can wake. */
export type WorkQueue = "webhooks" | "emails";

/**
 * How long a worker that hears wake-ups waits before looking anyway: for a notice lost while the listening
 * connection was down (its gap also wakes every worker) and for work whose due time no row records.
 */
export const IDLE_BACKSTOP_MS = 5 * 60_000;

/**
 * An expression that notifies `queue`'s workers when the statement's transaction commits; use it in a
 * `returning` of the insert that queues the work. PostgreSQL folds repeats of one notice within a transaction.
 */
export const notifyWorkersAtCommit = (queue: WorkQueue): SQL => sql`pg_notify(${WORK_CHANNEL}, ${queue})`;

/**
 * Wakes the worker each notice names (`workerOf` is asked at each notice: a test may swap a worker in); every worker
 * when notices may have been missed. Returns the unsubscribe.
 */
export function wakeWorkersOnNotice(
  handle: Pick<DatabaseHandle, "listen">,
  workerOf: (queue: WorkQueue) => { wake: () => void } | null | undefined,
): Promise<() => Promise<void>> {
  const queues: WorkQueue[] = ["webhooks", "emails"];
  return handle.listen(
    WORK_CHANNEL,
    (payload) => {
      if (queues.includes(payload as WorkQueue)) workerOf(payload as WorkQueue)?.wake();
    },
    () => {
      for (const queue of queues) workerOf(queue)?.wake();
    },
  );
}
