import { describe, expect, it } from "vitest";
import { fakeRuntime } from "../testing/fake-runtime.ts";
import { AsyncCache, CACHE_DROP_AFTER_MS, CACHE_THROTTLE_MS } from "./async-cache.ts";
import { watchKey } from "./watch.ts";

/** A fetcher whose calls the test resolves by hand, recording how many run at once. */
function controlledFetcher() {
  const calls: { key: string; resolve: (value: string) => void; reject: (error: unknown) => void }[] = [];
  let running = 0;
  let maxRunning = 0;
  const fetcher = (key: string) => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    return new Promise<string>((resolve, reject) => {
      calls.push({
        key,
        resolve: (value) => {
          running--;
          resolve(value);
        },
        reject: (error) => {
          running--;
          reject(error);
        },
      });
    });
  };
  return { fetcher, calls, maxRunning: () => maxRunning };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("AsyncCache", () => {
  it("shares one fetch between concurrent reads and serves later reads from the cache", async () => {
    const { runtime } = fakeRuntime();
    const { fetcher, calls } = controlledFetcher();
    const cache = new AsyncCache<[string], string>(fetcher, runtime);
    const a = cache.get(["k"]);
    const b = cache.get(["k"]);
    await tick();
    expect(calls).toHaveLength(1);
    calls[0]!.resolve("v1");
    expect(await a).toBe("v1");
    expect(await b).toBe("v1");
    expect(await cache.get(["k"])).toBe("v1");
    expect(calls).toHaveLength(1);
    expect(cache.snapshot(["k"])).toEqual({ status: "ok", data: "v1" });
  });

  it("keys by value for primitives and by identity for objects", async () => {
    const { runtime } = fakeRuntime();
    let count = 0;
    const cache = new AsyncCache<[object, string], number>(async () => ++count, runtime);
    const session = {};
    expect(await cache.get([session, "t"])).toBe(1);
    expect(await cache.get([session, "t"])).toBe(1);
    expect(await cache.get([{}, "t"])).toBe(2);
    expect(await cache.get([session, "u"])).toBe(3);
  });

  it("refetches after invalidate, and a subscriber is told about the new value without asking", async () => {
    const { runtime } = fakeRuntime();
    let version = 0;
    const cache = new AsyncCache<[], string>(async () => `v${++version}`, runtime);
    const seen: string[] = [];
    const unsubscribe = cache.subscribe([], () => {
      const snapshot = cache.snapshot([]);
      if (snapshot.status === "ok") seen.push(snapshot.data);
    });
    await tick();
    cache.invalidate();
    await tick();
    await tick();
    expect(seen).toEqual(["v1", "v2"]);
    unsubscribe();
  });

  it("runs at most one fetch per key and spaces fetches by the throttle", async () => {
    const { runtime, sleeps } = fakeRuntime();
    const { fetcher, calls, maxRunning } = controlledFetcher();
    const cache = new AsyncCache<[string], string>(fetcher, runtime);
    const first = cache.get(["k"]);
    await tick();
    // Three invalidations while the first fetch runs collapse into one follow-up fetch.
    const second = cache.refresh(["k"]);
    cache.invalidate();
    cache.invalidate();
    calls[0]!.resolve("old");
    await first;
    await tick();
    await tick();
    expect(calls).toHaveLength(2);
    expect(maxRunning()).toBe(1);
    // The fake clock did not move, so the follow-up waited the whole throttle.
    expect(sleeps).toEqual([CACHE_THROTTLE_MS]);
    calls[1]!.resolve("new");
    expect(await second).toBe("new");
    expect(await cache.get(["k"])).toBe("new");
    expect(calls).toHaveLength(2);
  });

  it("a value set by a write is not replaced by an older fetch still running", async () => {
    const { runtime } = fakeRuntime();
    const { fetcher, calls } = controlledFetcher();
    const cache = new AsyncCache<[string], string>(fetcher, runtime);
    const pending = cache.get(["k"]);
    await tick();
    cache.set(["k"], "written");
    calls[0]!.resolve("stale");
    await pending;
    expect(cache.snapshot(["k"])).toEqual({ status: "ok", data: "written" });
  });

  it("shows errors but does not keep them: the next read fetches again", async () => {
    const { runtime } = fakeRuntime();
    const { fetcher, calls } = controlledFetcher();
    const cache = new AsyncCache<[string], string>(fetcher, runtime);
    const failing = cache.get(["k"]);
    await tick();
    calls[0]!.reject(new Error("down"));
    await expect(failing).rejects.toThrow("down");
    expect(cache.snapshot(["k"]).status).toBe("error");
    const retry = cache.get(["k"]);
    await tick();
    calls[1]!.resolve("up");
    expect(await retry).toBe("up");
  });

  it("drops a key 5000 ms after its last subscriber leaves, not before", async () => {
    const fake = fakeRuntime();
    let count = 0;
    const cache = new AsyncCache<[string], number>(async () => ++count, fake.runtime);
    const unsubscribeA = cache.subscribe(["k"], () => {});
    const unsubscribeB = cache.subscribe(["k"], () => {});
    await tick();
    unsubscribeA();
    fake.advance(CACHE_DROP_AFTER_MS * 2);
    fake.runTimers();
    expect(cache.size).toBe(1);
    unsubscribeB();
    fake.advance(CACHE_DROP_AFTER_MS - 1);
    fake.runTimers();
    expect(cache.size).toBe(1);
    expect(await cache.get(["k"])).toBe(1);
    fake.advance(CACHE_DROP_AFTER_MS);
    fake.runTimers();
    expect(cache.size).toBe(0);
    expect(await cache.get(["k"])).toBe(2);
  });

  it("watchKey keeps snapshot identity until the data changes (for useSyncExternalStore)", async () => {
    const { runtime } = fakeRuntime();
    let version = 0;
    const cache = new AsyncCache<[], { version: number }>(async () => ({ version: ++version }), runtime);
    const watched = watchKey(
      cache,
      () => [] as [],
      (value) => value.version,
    );
    const unsubscribe = watched.subscribe(() => {});
    await tick();
    const first = watched.getSnapshot();
    expect(first).toEqual({ status: "ok", data: 1 });
    expect(watched.getSnapshot()).toBe(first);
    cache.invalidate();
    await tick();
    await tick();
    expect(watched.getSnapshot()).toEqual({ status: "ok", data: 2 });
    unsubscribe();
  });
});
