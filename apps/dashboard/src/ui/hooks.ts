import { type DependencyList, useCallback, useEffect, useRef, useState } from "react";

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

/** What to tell an owner: for a refused request the server's own words, without the method and path. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error && error.name === "HttpStatusError" && "responseText" in error) {
    const status = (error as { status?: number }).status ?? 0;
    const text = String(error.responseText).trim();
    if (status >= 400 && status < 500 && text) return text;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}
