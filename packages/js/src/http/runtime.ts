/**
 * Everything the SDK takes from its surroundings that tests need to control: the network, time, randomness
 * and the browser's online flag. Apps get the real ones; tests pass fakes through the `runtime` option so that
 * retries, token expiry and polling run without waiting seconds.
 */
export type Runtime = {
  fetch: typeof fetch;
  /** Resolves after `ms` milliseconds (retry back-off, Retry-After, CLI polling, the wait after a redirect). */
  sleep: (ms: number) => Promise<void>;
  /** A number in [0, 1), for jitter. */
  random: () => number;
  /** Milliseconds since the epoch; token expiry is judged against it. */
  now: () => number;
  /** False only when the browser says it is offline. */
  isOnline: () => boolean;
  /** Timers for cache expiry; handles are opaque. */
  setTimer: (callback: () => void, ms: number) => unknown;
  clearTimer: (handle: unknown) => void;
};

/** setTimeout cannot wait longer than this; longer waits are split. */
export const MAX_SINGLE_WAIT_MS = 2_147_483_647;

async function realSleep(ms: number): Promise<void> {
  let remaining = Math.max(0, ms);
  do {
    const chunk = Math.min(remaining, MAX_SINGLE_WAIT_MS);
    await new Promise<void>((resolve) => setTimeout(resolve, chunk));
    remaining -= chunk;
  } while (remaining > 0);
}

function realSetTimer(callback: () => void, ms: number): unknown {
  const handle = setTimeout(callback, Math.min(ms, MAX_SINGLE_WAIT_MS));
  // A pending cache expiry must not keep a Node process alive.
  (handle as { unref?: () => void }).unref?.();
  return handle;
}

export function createRuntime(overrides: Partial<Runtime> = {}): Runtime {
  return {
    // Bound lazily: some environments replace globalThis.fetch after the app is created (test mocks, polyfills).
    fetch: (input, init) => globalThis.fetch(input, init),
    sleep: realSleep,
    random: Math.random,
    now: () => Date.now(),
    isOnline: () => typeof navigator === "undefined" || navigator.onLine !== false,
    setTimer: realSetTimer,
    clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    ...overrides,
  };
}

/** True in a browser page (not in Node, workers or server renderers). */
export function isBrowser(): boolean {
  return typeof window !== "undefined" && typeof document !== "undefined";
}
