import { type FormEvent, useCallback, useRef, useState } from "react";
import { useStrings } from "../context.ts";
import { type DescribedError, describeError, type ErrorField, reportUnexpected } from "./errors.ts";

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

export type FormAction = {
  /** True while an action runs; a second `run` meanwhile is ignored. */
  pending: boolean;
  /** The last failure, worded for the user (`message`) and placed (`field`); undefined when there is none. */
  failure: DescribedError | undefined;
  /** `failure?.message`, for forms that show one message. */
  error: string | undefined;
  /**
   * Runs the action with the previous failure cleared. A throw becomes `failure`: a known error in this package's
   * words, anything else as a generic apology, logged for the developer.
   */
  run: (action: () => Promise<void>) => Promise<void>;
  /**
   * Shows a failure the action got back as a result rather than a throw (an SDK `Result` error, expected);
   * `link` as for the hook, for this one failure.
   */
  fail: (error: unknown, options?: { link?: boolean }) => DescribedError;
  /** Clears the failure, e.g. when the user edits the form again. */
  reset: () => void;
  /**
   * The failure's message under the field it belongs to, if the form has that field, else under `form`: spread
   * next to the form's own checks (`errors.email ?? failed.email`).
   */
  placed: <F extends ErrorField>(fields: readonly F[]) => Partial<Record<F | "form", string>>;
};

/**
 * The pending / error handling every form and action button of the components shares: what `useAction` does,
 * plus the failure turned into a message (`describeError`), with `{ link: true }` for pages opened from an
 * e-mailed link (which speak of links instead of codes).
 */
export function useFormAction(
  options: {
    link?: boolean;
    /** Told when an action threw, before the failure shows (the sign-in forms stop tracking their attempt). */
    onThrow?: () => void;
  } = {},
): FormAction {
  const s = useStrings();
  const [run, pending] = useAction();
  const [failure, setFailure] = useState<DescribedError>();
  const link = options.link === true;
  // The latest callback, without making `run` change on every render.
  const onThrow = useRef(options.onThrow);
  onThrow.current = options.onThrow;
  const fail = useCallback(
    (error: unknown, options: { link?: boolean } = {}) => {
      const described = describeError(error, s, { link: options.link ?? link });
      setFailure(described);
      return described;
    },
    [s, link],
  );
  const runAction = useCallback(
    (action: () => Promise<void>) =>
      run(async () => {
        setFailure(undefined);
        try {
          await action();
        } catch (caught) {
          onThrow.current?.();
          reportUnexpected(caught);
          fail(caught);
        }
      }),
    [run, fail],
  );
  const reset = useCallback(() => setFailure(undefined), []);
  const placed = <F extends ErrorField>(fields: readonly F[]): Partial<Record<F | "form", string>> => {
    if (!failure) return {};
    const field = (fields as readonly ErrorField[]).includes(failure.field) ? (failure.field as F) : "form";
    return { [field]: failure.message } as Partial<Record<F | "form", string>>;
  };
  return { pending, failure, error: failure?.message, run: runAction, fail, reset, placed };
}

/**
 * A form that saves in place and then says so ("Saved" on its button) until it is edited again (`setSaved(false)`):
 * `useFormAction` plus the flag, and the submit handler that runs `save`.
 */
export function useSaveForm(save: () => Promise<void>) {
  const action = useFormAction();
  const [saved, setSaved] = useState(false);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      setSaved(false);
      await save();
      setSaved(true);
    });
  };
  return { action, saved, setSaved, onSubmit };
}
