import { expect, it, vi } from "vitest";
import { deferred } from "../testing/deferred.ts";
import { startPollingWorker } from "./polling-worker.ts";

it("runs one pass at a time, and once more for wake-ups that came during a pass", async () => {
  const gate = deferred();
  let passes = 0;
  let concurrent = 0;
  let mostConcurrent = 0;
  const worker = startPollingWorker({
    name: "test queue",
    intervalMs: 60_000,
    pass: async () => {
      passes += 1;
      concurrent += 1;
      mostConcurrent = Math.max(mostConcurrent, concurrent);
      if (passes === 1) await gate.promise;
      concurrent -= 1;
    },
  });
  // The first pass starts at once and waits at the gate; three wake-ups meanwhile make one more pass, not three.
  worker.wake();
  worker.wake();
  const drained = worker.drain();
  gate.resolve();
  await drained;
  expect({ passes, mostConcurrent }).toEqual({ passes: 2, mostConcurrent: 1 });
  await worker.stop();
  expect(worker.isRunning()).toBe(false);
  worker.wake();
  expect(passes).toBe(2);
});

it("hands back what a pass holds when it outlasts the stop's deadline, and tells the pass to stop claiming", async () => {
  const gate = deferred();
  const seenStopping: boolean[] = [];
  let handedBack = 0;
  let stopped = 0;
  const worker = startPollingWorker({
    name: "slow queue",
    intervalMs: 60_000,
    pass: async (stopping) => {
      seenStopping.push(stopping());
      await gate.promise;
      seenStopping.push(stopping());
    },
    handBack: async () => {
      handedBack += 1;
    },
    onStopped: () => {
      stopped += 1;
    },
  });
  await worker.stop({ handBackAfterMs: 20 });
  expect({ handedBack, stopped }).toEqual({ handedBack: 1, stopped: 1 });
  gate.resolve();
  await expect.poll(() => seenStopping).toEqual([false, true]);
});

it("waits for the settling work before a drain's pass, and hands nothing back when the pass ends in time", async () => {
  const order: string[] = [];
  let handedBack = 0;
  const worker = startPollingWorker({
    name: "settling queue",
    intervalMs: 60_000,
    pass: async () => {
      order.push("pass");
    },
    settleFirst: async () => {
      order.push("settle");
    },
    handBack: async () => {
      handedBack += 1;
    },
  });
  await worker.drain();
  expect(order.slice(-2)).toEqual(["settle", "pass"]);
  await worker.stop({ handBackAfterMs: 5_000 });
  expect(handedBack).toBe(0);
});

it("looks again when the queue's next work falls due, and otherwise only after the interval", async () => {
  vi.useFakeTimers();
  try {
    let passes = 0;
    // First a retry due in 5 s, then nothing waits.
    const dueHints = [5_000, null];
    const worker = startPollingWorker({
      name: "idle queue",
      intervalMs: 60_000,
      pass: async () => {
        passes += 1;
      },
      nextDueInMs: async () => dueHints.shift() ?? null,
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(2);
    // Nothing is due: an idle worker does not look again for the whole interval.
    await vi.advanceTimersByTimeAsync(59_999);
    expect(passes).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(3);
    await worker.stop();
  } finally {
    vi.useRealTimers();
  }
});

it("never looks again sooner than its shortest wait, even when work is due now but was not taken", async () => {
  vi.useFakeTimers();
  try {
    let passes = 0;
    const worker = startPollingWorker({
      name: "contended queue",
      intervalMs: 60_000,
      pass: async () => {
        passes += 1;
      },
      nextDueInMs: async () => 0,
    });
    await vi.advanceTimersByTimeAsync(249);
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(2);
    await worker.stop();
  } finally {
    vi.useRealTimers();
  }
});

it("waits one interval before the first pass when asked to, instead of running it at start", async () => {
  const passes = { atOnce: 0, afterInterval: 0 };
  const atOnce = startPollingWorker({
    name: "queue",
    intervalMs: 60_000,
    pass: async () => {
      passes.atOnce += 1;
    },
  });
  const afterInterval = startPollingWorker({
    name: "repair",
    intervalMs: 60_000,
    firstPassAfterInterval: true,
    pass: async () => {
      passes.afterInterval += 1;
    },
  });
  // A start's pass begins synchronously; the delayed worker has none until its interval or a wake-up.
  expect(passes).toEqual({ atOnce: 1, afterInterval: 0 });
  await afterInterval.drain();
  expect(passes.afterInterval).toBe(1);
  await Promise.all([atOnce.stop(), afterInterval.stop()]);
});
