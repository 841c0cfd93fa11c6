import type { Runtime } from "../http/runtime.ts";

/** What a UI can render synchronously for one cached read. */
export type CacheSnapshot<V> =
  | { status: "pending" }
  | { status: "ok"; data: V }
  | { status: "error"; error: unknown };

/** At most one fetch per key at a time, and fetches of one key start at least this far apart. */
export const CACHE_THROTTLE_MS = 300;
/** A key nobody subscribes to (or has read lately) is forgotten after this long. */
export const CACHE_DROP_AFTER_MS = 5000;

type Entry<K, V> = {
  key: K;
  snapshot: CacheSnapshot<V>;
  /** The data may be out of date (invalidated, or the last fetch failed); the next read fetches again. */
  stale: boolean;
  /** Bumped by every invalidation, so a fetch that started before one knows its result is already old. */
  generation: number;
  inflight: Promise<V> | null;
  /** The generation the running fetch started in. */
  inflightGeneration: number;
  /** A fetch requested while another ran; it starts when that one ends. */
  queued: Promise<V> | null;
  lastStartedAt: number;
  listeners: Set<() => void>;
  dropTimer: unknown;
};

const PENDING: CacheSnapshot<never> = Object.freeze({ status: "pending" });

/**
 * Reads cached per key and shared by everyone who asks: the React layer subscribes and renders snapshots, plain
 * calls `get`. Writes that change a read call `invalidate`, and subscribed keys are fetched again.
 * Key parts are compared by value for primitives and by identity for objects (a session, a store).
 */
export class AsyncCache<K extends readonly unknown[], V> {
  private readonly entries = new Map<string, Entry<K, V>>();
  private readonly objectIds = new WeakMap<object, number>();
  private nextObjectId = 1;

  constructor(
    private readonly fetcher: (...key: K) => Promise<V>,
    private readonly runtime: Pick<Runtime, "now" | "sleep" | "setTimer" | "clearTimer">,
  ) {}

  /** The cached value, or a fetch (shared with any that is already running). */
  get(key: K): Promise<V> {
    const entry = this.entry(key);
    this.touch(entry);
    if (entry.snapshot.status === "ok" && !entry.stale) return Promise.resolve(entry.snapshot.data);
    if (entry.queued) return entry.queued;
    if (entry.inflight && entry.inflightGeneration === entry.generation) return entry.inflight;
    return this.refetch(entry);
  }

  /** What is known right now, without fetching. */
  snapshot(key: K): CacheSnapshot<V> {
    return this.entries.get(this.id(key))?.snapshot ?? PENDING;
  }

  /**
   * Calls `listener` whenever the snapshot of `key` changes, and fetches it if needed. The value stays cached
   * while anyone listens and for CACHE_DROP_AFTER_MS after the last one leaves.
   */
  subscribe(key: K, listener: () => void): () => void {
    const entry = this.entry(key);
    entry.listeners.add(listener);
    this.cancelDrop(entry);
    if (entry.snapshot.status !== "ok" || entry.stale) this.get(key).catch(() => {});
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      entry.listeners.delete(listener);
      this.touch(entry);
    };
  }

  /** Fetches again even if the cached value is fresh. */
  refresh(key: K): Promise<V> {
    const entry = this.entry(key);
    this.touch(entry);
    entry.stale = true;
    return this.refetch(entry);
  }

  /** Stores a value a write just returned, so readers see it without a fetch. */
  set(key: K, value: V): void {
    const entry = this.entry(key);
    this.touch(entry);
    entry.stale = false;
    // A fetch still running started before this write; its answer must not replace the newer value.
    entry.generation++;
    this.publish(entry, { status: "ok", data: value });
  }

  /** Marks matching keys (all without a predicate) out of date; subscribed ones are fetched again right away. */
  invalidate(matches: (key: K) => boolean = () => true): void {
    for (const [id, entry] of [...this.entries]) {
      if (!matches(entry.key)) continue;
      entry.stale = true;
      entry.generation++;
      if (entry.listeners.size > 0) this.refetch(entry).catch(() => {});
      else if (!entry.inflight) {
        this.cancelDrop(entry);
        this.entries.delete(id);
      }
    }
  }

  /** How many keys are held; for tests. */
  get size(): number {
    return this.entries.size;
  }

  private refetch(entry: Entry<K, V>): Promise<V> {
    if (entry.queued) return entry.queued;
    if (entry.inflight) {
      const queued = entry.inflight
        .catch(() => undefined)
        .then(() => {
          entry.queued = null;
          return this.start(entry);
        });
      entry.queued = queued;
      return queued;
    }
    return this.start(entry);
  }

  private start(entry: Entry<K, V>): Promise<V> {
    const run = async (): Promise<V> => {
      const wait = entry.lastStartedAt + CACHE_THROTTLE_MS - this.runtime.now();
      if (entry.lastStartedAt > 0 && wait > 0) await this.runtime.sleep(wait);
      entry.lastStartedAt = this.runtime.now();
      const generation = entry.generation;
      entry.inflightGeneration = generation;
      try {
        const data = await this.fetcher(...entry.key);
        const outdated = entry.generation !== generation;
        if (!outdated) {
          entry.stale = false;
          this.publish(entry, { status: "ok", data });
        } else if (entry.snapshot.status !== "ok") {
          // Old data is still better than nothing to show while the newer fetch runs.
          this.publish(entry, { status: "ok", data });
        }
        return data;
      } catch (error) {
        // Errors are shown but not kept: the next read tries again.
        entry.stale = true;
        this.publish(entry, { status: "error", error });
        throw error;
      } finally {
        entry.inflight = null;
        this.touch(entry);
      }
    };
    entry.inflightGeneration = entry.generation;
    const promise = run();
    entry.inflight = promise;
    return promise;
  }

  private publish(entry: Entry<K, V>, snapshot: CacheSnapshot<V>): void {
    const previous = entry.snapshot;
    if (previous.status === "ok" && snapshot.status === "ok" && previous.data === snapshot.data) return;
    entry.snapshot = snapshot;
    for (const listener of [...entry.listeners]) listener();
  }

  private entry(key: K): Entry<K, V> {
    const id = this.id(key);
    let entry = this.entries.get(id);
    if (!entry) {
      entry = {
        key,
        snapshot: PENDING,
        stale: false,
        generation: 0,
        inflight: null,
        inflightGeneration: 0,
        queued: null,
        lastStartedAt: 0,
        listeners: new Set(),
        dropTimer: null,
      };
      this.entries.set(id, entry);
    }
    return entry;
  }

  /** (Re)starts the countdown that forgets an entry nobody listens to. */
  private touch(entry: Entry<K, V>): void {
    this.cancelDrop(entry);
    if (entry.listeners.size > 0) return;
    entry.dropTimer = this.runtime.setTimer(() => {
      entry.dropTimer = null;
      if (entry.listeners.size > 0 || entry.inflight) return;
      const id = this.id(entry.key);
      if (this.entries.get(id) === entry) this.entries.delete(id);
    }, CACHE_DROP_AFTER_MS);
  }

  private cancelDrop(entry: Entry<K, V>): void {
    if (entry.dropTimer !== null) {
      this.runtime.clearTimer(entry.dropTimer);
      entry.dropTimer = null;
    }
  }

  private id(key: K): string {
    return key
      .map((part) => {
        if ((typeof part === "object" && part !== null) || typeof part === "function") {
          let objectId = this.objectIds.get(part as object);
          if (objectId === undefined) {
            objectId = this.nextObjectId++;
            this.objectIds.set(part as object, objectId);
          }
          return `#${objectId}`;
        }
        return part === undefined ? "u" : JSON.stringify(part);
      })
      .join("|");
  }
}
