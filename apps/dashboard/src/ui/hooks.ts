import { type DependencyList, useCallback, useEffect, useRef, useState } from "react";
import { errorMessage } from "./errors.ts";

export type AsyncState<T> = {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<void>;
};

/** Runs `load` when `deps` change; `reload()` refetches without clearing what is shown. */
export function useAsync<T>(load: () => Promise<T>, deps: DependencyList): AsyncState<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const run = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await load();
      if (mine === generation.current) {
        setData(value);
        setError(undefined);
      }
    } catch (caught) {
      if (mine === generation.current) setError(caught);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
    // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps decide when to refetch
  }, deps);
  useEffect(() => {
    setData(undefined);
    void run();
  }, [run]);
  return { data, error, loading, reload: run };
}

/**
 * A form's submit: `busy` while the action given to `run` runs, and its failure as `error`, a message to show beside
 * the fields (`setError` for the form's own checks before it sends anything).
 */
export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

/** What to tell an owner about a failure: ui/errors.ts, re-exported here where the pages have always found it. */
export { errorMessage } from "./errors.ts";
