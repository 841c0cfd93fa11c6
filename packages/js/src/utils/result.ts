/**
 * The outcome of a call whose failures are part of its contract (wrong password, used code, ...), as the
 * reference SDK returns it: `{status: "ok", data}` or `{status: "error", error}`. Unexpected failures still throw.
 */
export type Result<T, E = unknown> = { status: "ok"; data: T } | { status: "error"; error: E };

export const Result = {
  ok<T>(data: T): { status: "ok"; data: T } {
    return { status: "ok", data };
  },
  error<E>(error: E): { status: "error"; error: E } {
    return { status: "error", error };
  },
  /** The data, or throws the error. */
  orThrow<T, E>(result: Result<T, E>): T {
    if (result.status === "error") throw result.error;
    return result.data;
  },
};
