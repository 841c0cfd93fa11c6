/**
 * The one mechanism behind every background queue (the email outbox, webhook deliveries): a pass of work that runs
 * at most once at a time in this process, on a timer (for retries and for work other instances queued), when woken
 * (work was just queued here), and on demand (`drain`, for tests and benches). Stopping ends the timer and waits
 * for the pass in flight; what it still holds after `handBackAfterMs` is handed back to the queue, so a shutdown
 * never waits on a slow SMTP server or webhook receiver. A queue brings only its pass (and its leased rows,
 * leased-queue.ts); a third queue adds a pass, not a third copy of this.
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
};

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

  const runInBackground = () => {
    if (stopped) return;
    run().catch((error: unknown) => console.error(`${options.name} failed:`, error));
  };

  const timer = setInterval(runInBackground, options.intervalMs);
  timer.unref();
  runInBackground();

  return {
    wake: runInBackground,
    drain: async () => {
      await options.settleFirst?.();
      if (!stopped) await run();
    },
    isRunning: () => !stopped,
    stop: async (stopOptions = {}) => {
      stopped = true;
      clearInterval(timer);
      try {
        const settled = (options.settleFirst?.() ?? Promise.resolve()).then(() => running?.catch(() => {}));
        if (!(await settlesWithin(settled, stopOptions.handBackAfterMs))) await options.handBack?.();
      } finally {
        options.onStopped?.();
      }
    },
  };
}
