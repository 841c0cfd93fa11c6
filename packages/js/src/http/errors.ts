/**
 * Errors the SDK raises itself. Errors the server reports are `KnownError`s from @gatehouse/shared (rebuilt
 * from the response) or, for plain-text answers, `HttpStatusError`.
 */

/** A non-2xx answer that is not a known error (a plain-text StatusError of the server, a 5xx, a proxy page). */
export class HttpStatusError extends Error {
  override readonly name = "HttpStatusError";
  constructor(
    readonly status: number,
    readonly method: string,
    readonly path: string,
    readonly responseText: string,
  ) {
    super(`${method} ${path} failed with status ${status}: ${responseText.slice(0, 500)}`);
  }
}

/** The server answered something the protocol does not allow (e.g. a known-error header that disagrees). */
export class InvalidServerResponseError extends Error {
  override readonly name = "InvalidServerResponseError";
}

/** Facts gathered after a request could not reach the server, to tell "offline" from "server down". */
export type ConnectionDiagnostics = {
  online: boolean;
  healthUrl: string;
  /** `ok`, an HTTP status, or the network error message of the health check. */
  health: string;
};

/** The server could not be reached, after retrying where that was safe. */
export class ConnectionError extends Error {
  override readonly name = "ConnectionError";
  constructor(
    message: string,
    readonly diagnostics: ConnectionDiagnostics,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
