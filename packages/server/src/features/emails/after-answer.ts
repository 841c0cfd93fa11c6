import type { AppDeps } from "../../deps.ts";

/**
 * Email work that a request starts but does not wait for, so that its answer takes no longer when there is
 * something to send than when there is not.
 *
 * Why: `send-reset-code` answers the same text whether or not an account signs in with the email, but minting a
 * code, rendering and queueing the email took ~19 ms that the unknown-email path did not spend, so the answer time
 * told which emails have accounts. Now the route only validates, counts its rate limits (the same for both) and
 * hands the rest here; the lookup, the code and the email all happen after the answer was sent.
 *
 * The cost: the work lives in this process only until it has queued its email, so an instance that dies within
 * those milliseconds loses that one email (the person asks again; the answer never promised an email). The queued
 * email itself is durable as always (the outbox).
 *
 * Work is kept per database handle (one per running Gatehouse), so that `settleAfterAnswer` can wait for it: the
 * outbox worker's `drain` and `stop`, and the tests' outbox readers, do.
 */

type Queue = {
  /** Work that was started and has not finished. */
  pending: Set<Promise<void>>;
  /** While held (tests only), work waits here instead of starting. */
  held: Array<() => void> | null;
};

const queues = new WeakMap<object, Queue>();

function queueOf(deps: Pick<AppDeps, "db">): Queue {
  let queue = queues.get(deps.db);
  if (!queue) {
    queue = { pending: new Set(), held: null };
    queues.set(deps.db, queue);
  }
  return queue;
}

/**
 * Runs `task` once the current request has answered. It starts on `setImmediate`, after the handler's response
 * has been handed to the HTTP layer (that happens in the same turn, through promise callbacks). A failure is logged
 * with `what`; nobody is waiting for it to answer an error to.
 */
export function runAfterAnswer(deps: Pick<AppDeps, "db">, what: string, task: () => Promise<void>): void {
  const queue = queueOf(deps);
  const start = () => {
    const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(task)
      .catch((error) => console.error(`${what} failed after the request was answered:`, error))
      .finally(() => queue.pending.delete(done));
    queue.pending.add(done);
  };
  if (queue.held) queue.held.push(start);
  else start();
}

/** Resolves once no work started here is running (work may start more work, so it looks again). */
export async function settleAfterAnswer(deps: Pick<AppDeps, "db">): Promise<void> {
  const queue = queues.get(deps.db);
  while (queue && queue.pending.size > 0) await Promise.all([...queue.pending]);
}

/**
 * For tests: work handed over from now on waits until the returned function is called, so a test can look at what
 * a request did before answering. Never used by the server itself.
 */
export function holdAfterAnswer(deps: Pick<AppDeps, "db">): () => void {
  const queue = queueOf(deps);
  queue.held ??= [];
  return () => {
    const held = queue.held ?? [];
    queue.held = null;
    for (const start of held) start();
  };
}
