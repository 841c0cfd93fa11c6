import { createRuntime, type Runtime } from "../http/runtime.ts";

/**
 * A runtime whose waits return at once and are written down, with a clock the test moves by hand. Timers
 * (cache expiry, cookie polling) are collected and fired by `runTimers`.
 */
export function fakeRuntime(overrides: Partial<Runtime> = {}) {
  const sleeps: number[] = [];
  let clock = Date.now();
  let timers: { id: number; at: number; callback: () => void }[] = [];
  let nextTimer = 1;
  const runtime = createRuntime({
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    random: () => 0.5,
    now: () => clock,
    setTimer: (callback, ms) => {
      const id = nextTimer++;
      timers.push({ id, at: clock + ms, callback });
      return id;
    },
    clearTimer: (id) => {
      timers = timers.filter((timer) => timer.id !== id);
    },
    ...overrides,
  });
  return {
    runtime,
    sleeps,
    advance(ms: number) {
      clock += ms;
    },
    /** Fires every timer due by now (after `advance`). */
    runTimers() {
      const due = timers.filter((timer) => timer.at <= clock);
      timers = timers.filter((timer) => timer.at > clock);
      for (const timer of due) timer.callback();
    },
    get pendingTimers() {
      return timers.length;
    },
  };
}
