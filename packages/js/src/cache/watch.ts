import type { AsyncCache, CacheSnapshot } from "./async-cache.ts";

/**
 * A read a UI can follow: `subscribe` + `getSnapshot` are what React's useSyncExternalStore takes; `get` waits for
 * the value. Snapshots keep their identity until the data changes, so renders do not loop.
 */
export type Watchable<T> = {
  subscribe(listener: () => void): () => void;
  getSnapshot(): CacheSnapshot<T>;
  get(): Promise<T>;
};

/** Follows one key of a cache, with an optional mapping of the data (e.g. anonymous users shown as null). */
export function watchKey<K extends readonly unknown[], V, T = V>(
  cache: AsyncCache<K, V>,
  key: () => K,
  map: (value: V) => T = (value) => value as unknown as T,
): Watchable<T> {
  const mapped = new WeakMap<object, CacheSnapshot<T>>();
  const convert = (snapshot: CacheSnapshot<V>): CacheSnapshot<T> => {
    if (snapshot.status !== "ok") return snapshot;
    let result = mapped.get(snapshot);
    if (!result) {
      result = { status: "ok", data: map(snapshot.data) };
      mapped.set(snapshot, result);
    }
    return result;
  };
  return {
    subscribe: (listener) => cache.subscribe(key(), listener),
    getSnapshot: () => convert(cache.snapshot(key())),
    get: async () => map(await cache.get(key())),
  };
}

/**
 * Like watchKey, but the key itself can change (the signed-in user changes when the tokens do): `onKeyChange`
 * subscribes to whatever moves the key, and the subscription follows it.
 */
export function watchMovingKey<K extends readonly unknown[], V, T = V>(
  cache: AsyncCache<K, V>,
  key: () => K,
  onKeyChange: (listener: () => void) => () => void,
  map?: (value: V) => T,
): Watchable<T> {
  const inner = watchKey(cache, key, map);
  return {
    ...inner,
    subscribe(listener) {
      let unsubscribeKey = inner.subscribe(listener);
      const unsubscribeSource = onKeyChange(() => {
        unsubscribeKey();
        unsubscribeKey = inner.subscribe(listener);
        listener();
      });
      return () => {
        unsubscribeSource();
        unsubscribeKey();
      };
    },
  };
}
