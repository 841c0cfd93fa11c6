import { useCallback, useRef, useState } from "react";

/**
 * Runs one async action at a time for a button or form: `pending` while it runs, and a second click while it
 * runs is ignored (no double submits).
 */
export function useAction(): [run: (action: () => Promise<void>) => Promise<void>, pending: boolean] {
  const [pending, setPending] = useState(false);
  const running = useRef(false);
  const run = useCallback(async (action: () => Promise<void>) => {
    if (running.current) return;
    running.current = true;
    setPending(true);
    try {
      await action();
    } finally {
      running.current = false;
      setPending(false);
    }
  }, []);
  return [run, pending];
}
