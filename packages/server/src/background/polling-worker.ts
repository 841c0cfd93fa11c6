/**
 * The one mechanism behind every background queue (the email outbox, webhook deliveries): a pass of work that runs
 * at most once at a time in this process, on a timer (for retries and for work other instances queued), when woken
 * (work was just queued here), and on demand (`drain`, for tests and benches). Stopping ends the timer and waits
 * for the pass in flight; what it still holds after `handBackAfterMs` is handed back to the queue, so a shutdown
 * never waits on a slow SMTP server or webhook receiver. A queue brings only its pass (and its leased rows,
 * leased-queue.ts); a third queue adds a pass, not a third copy of this.
 *
 * Idle is idle: after each pass the queue says when its next known work falls due (a retry, a scheduled email, a
 * lease running out), and the worker looks again then, or after `intervalMs` if that comes first. So with a long
 * interval (a backstop, when wake-ups reach every instance: work-notices.ts) an instance with nothing to do sends
 * no statement, and a retry still goes out on time.
 */
import { settlesWithin } from "./settles-within.ts";

export type PollingWorker = {
  /** Look at the queue now (called whenever something is queued). */
  wake: () => void;
  /** Runs passes until the queue has nothing due, then resolves; for tests, benches and shutdown hooks. */
  drain: () => Promise<void>;
  /**
   * Stops: no new pass starts, the pass in flight is waited for and, if it is still running after
   * `handBackAfterMs`, what it holds is handed back.
   */
  stop: (options?: { handBackAfterMs?: number }) => Promise<void>;
  /** False once `stop` was called: readiness (http/readiness.ts) reports it. */
  isRunning: () => boolean;
};

export type PollingWorkerOptions = {
  /** Names the queue in the log line of a pass that failed. */
  name: string;
  intervalMs: number;
  /**
   * One pass: take what is due and do it. It must look at `stopping()` between claims (and before starting a
   * send) and stop claiming once it is true.
   */
  pass: (stopping: () => boolean) => Promise<void>;
  /** Called by `stop` when the pass did not finish in time: make what it holds due again for others. */
  handBack?: () => Promise<void>;
  /** Work to wait for before a drain or a stop (the outbox's email work still running after its answer). */
  settleFirst?: () => Promise<void>;
  /** Called after the stop, whatever happened (close connections the passes kept open). */
  onStopped?: () => void;
  /**
   * Milliseconds until the queue's next known work is due, by the database's clock (null: nothing waits), asked
   * after each pass. Without it the worker looks every `intervalMs`.
   */
  nextDueInMs?: () => Promise<number | null>;
  /**
   * Wait one interval before the first pass instead of running it at start: for upkeep that a start does not make
   * due (a repair), so that starting an instance, or a fleet of them, costs nothing extra.
   */
  firstPassAfterInterval?: boolean;
};

/**
 * The shortest wait before looking again. A row that is due but was not taken (locked by another worker's claim a
 * moment ago) would otherwise make the worker look again at once, in a loop, until the other worker is done.
 */
const MIN_WAIT_MS = 250;

export function startPollingWorker(options: PollingWorkerOptions): PollingWorker {
  let stopped = false;
  let running: Promise<void> | null = null;
  let runAgain = false;
  const stopping = () => stopped;

  /** At most one pass at a time; a wake-up during a pass makes it look once more before finishing. */
  const run = (): Promise<void> => {
    if (running) {
      runAgain = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          runAgain = false;
          await options.pass(stopping);
        } while (runAgain && !stopped);
      } finally {
        running = null;
      }
    })();
    return running;
  };

  let timer: NodeJS.Timeout | null = null;
  const lookAgainIn = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(runInBackground, Math.max(MIN_WAIT_MS, Math.min(ms, options.intervalMs)));
    timer.unref();
  };

  /** When to look next: when the next known work is due, or after the interval, whichever comes first. */
  const schedule = async () => {
    let dueInMs: number | null = null;
    try {
      dueInMs = (await options.nextDueInMs?.()) ?? null;
    } catch {
      // The database away: look again after the interval, as without the hint.
    }
    lookAgainIn(dueInMs ?? options.intervalMs);
  };

  const runInBackground = () => {
    if (stopped) return;
    run()
      .catch((error: unknown) => console.error(`${options.name} failed:`, error))
      .then(schedule);
  };

  if (options.firstPassAfterInterval) lookAgainIn(options.intervalMs);
  else runInBackground();

  return {
    wake: runInBackground,
    drain: async () => {
      await options.settleFirst?.();
      if (!stopped) await run();
    },
    isRunning: () => !stopped,
    stop: async (stopOptions = {}) => {
      stopped = true;
      if (timer) clearTimeout(timer);
      try {
        const settled = (options.settleFirst?.() ?? Promise.resolve()).then(() => running?.catch(() => {}));
        if (!(await settlesWithin(settled, stopOptions.handBackAfterMs))) await options.handBack?.();
      } finally {
        options.onStopped?.();
      }
    },
  };
}
