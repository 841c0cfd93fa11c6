import type { CacheSnapshot, Watchable } from "@gatehouse/js";
import { use, useSyncExternalStore } from "react";

type Read<T> = Promise<T> & { settledWith?: { value: T }; failedWith?: { error: unknown } };

/**
 * The fetch a suspended component waits on, one per watchable. It is kept after it settles: when React replays
 * the component it must get the very same promise back from `use`, or it warns about an uncached promise.
 */
const reads = new WeakMap<Watchable<unknown>, Read<unknown>>();

function pendingRead<T>(watchable: Watchable<T>): Read<T> {
  const existing = reads.get(watchable as Watchable<unknown>) as Read<T> | undefined;
  if (existing && !existing.settledWith && !existing.failedWith) return existing;
  const started: Read<T> = watchable.get();
  started.then(
    (value) => {
      started.settledWith = { value };
    },
    (error: unknown) => {
      started.failedWith = { error };
    },
  );
  reads.set(watchable as Watchable<unknown>, started as Read<unknown>);
  return started;
}

type TrackedPromise<T> = Promise<T> & { status?: string; value?: T; reason?: unknown };

/** Settled snapshots as promises React reads without suspending (it looks at `status` first). */
const settledReads = new WeakMap<object, TrackedPromise<unknown>>();

function settledRead<T>(watchable: Watchable<T>, snapshot: CacheSnapshot<T>): Promise<T> {
  // Right after a suspension, the promise the component suspended on, if it brought exactly this data.
  const previous = reads.get(watchable as Watchable<unknown>) as Read<T> | undefined;
  if (snapshot.status === "ok" && previous?.settledWith && previous.settledWith.value === snapshot.data) {
    return previous;
  }
  if (snapshot.status === "error" && previous?.failedWith && previous.failedWith.error === snapshot.error) {
    return previous;
  }
  let promise = settledReads.get(snapshot) as TrackedPromise<T> | undefined;
  if (!promise) {
    if (snapshot.status === "ok") {
      promise = Object.assign(Promise.resolve(snapshot.data), { status: "fulfilled", value: snapshot.data });
    } else {
      const error = snapshot.status === "error" ? snapshot.error : new Error("not settled");
      promise = Object.assign(Promise.reject(error), { status: "rejected", reason: error });
      promise.catch(() => {});
    }
    settledReads.set(snapshot, promise as TrackedPromise<unknown>);
  }
  return promise;
}

/**
 * Renders a cached read: the data when it is there (old data stays on screen while a newer fetch runs, so there
 * is no flicker), suspends while the first fetch runs, and throws a failed read to the nearest error boundary.
 * `use` is called on every render, settled or not, as React requires of a component that once suspended on it.
 * `watchable` must keep its identity between renders.
 */
export function useWatchable<T>(watchable: Watchable<T>): T {
  const snapshot = useSyncExternalStore(watchable.subscribe, watchable.getSnapshot, watchable.getSnapshot);
  return use(snapshot.status === "pending" ? pendingRead(watchable) : settledRead(watchable, snapshot));
}

/** A promise that never settles: what a component waits on while the page navigates away. */
export const NEVER: Promise<never> = new Promise<never>(() => {});
