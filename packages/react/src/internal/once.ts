import { use } from "react";
import { useLocation } from "./router.ts";

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

const runs = new Map<string, Promise<Settled<unknown>>>();

/**
 * Runs `action` once per key and suspends until it settles, so that a page's one-shot call (checking a code,
 * finishing an OAuth sign-in) survives React running effects and renders twice.
 */
export function useOnce<T>(key: string, action: () => Promise<T>): Settled<T> {
  let promise = runs.get(key) as Promise<Settled<T>> | undefined;
  if (!promise) {
    promise = action().then(
      (value): Settled<T> => ({ ok: true, value }),
      (error: unknown): Settled<T> => ({ ok: false, error }),
    );
    runs.set(key, promise as Promise<Settled<unknown>>);
  }
  return use(promise);
}

/** Forgets a run, e.g. once the code it checked has been used. */
export function forgetOnce(key: string): void {
  runs.delete(key);
}

/** A query parameter of the current page (or the given value, for components used outside the handler). */
export function useQueryParam(name: string, given?: string | null): string | null {
  const location = useLocation();
  return given !== undefined ? given : location.searchParams.get(name);
}
