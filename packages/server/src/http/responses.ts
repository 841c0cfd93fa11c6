import { KnownError } from "@gatehouse/shared";
import { StatusError } from "./status-error.ts";

const JSON_TYPE = "application/json; charset=utf-8";
const TEXT_TYPE = "text/plain; charset=utf-8";

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": JSON_TYPE, ...headers } });
}

export function textResponse(text: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { "content-type": TEXT_TYPE, ...headers } });
}

/** The body and headers of PROTOCOL.md §2.1. Known-error bodies are always pretty-printed. */
export function knownErrorResponse(error: KnownError): Response {
  return new Response(JSON.stringify(error.toJSON(), null, 2), {
    status: error.status,
    headers: { "content-type": JSON_TYPE, "x-stack-known-error": error.code },
  });
}

/**
 * Turns anything a handler threw into a response. Known errors and status errors are the caller's fault (4xx);
 * anything else is our bug: a 500 whose details are shown only in development.
 */
export function errorToResponse(
  error: unknown,
  options: { requestId: string; isDevelopment: boolean },
): Response {
  if (error instanceof KnownError) return knownErrorResponse(error);
  if (error instanceof StatusError) return textResponse(error.message, error.status, error.headers);
  console.error(`[request ${options.requestId}] unhandled error`, error);
  const text = options.isDevelopment
    ? `Internal server error (request ${options.requestId}):\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}`
    : `Something went wrong. Please make sure the data you entered is correct.\n\nRequest ID: ${options.requestId}`;
  return textResponse(text, 500);
}

/**
 * PROTOCOL.md §1.6: with `x-stack-override-error-status`, a 4xx becomes 200 and the real status moves to
 * `x-stack-actual-status`, so browsers do not log expected failures. 5xx is never rewritten.
 */
export function applyOverrideErrorStatus(response: Response): Response {
  if (response.status < 400 || response.status >= 500) return response;
  const headers = new Headers(response.headers);
  headers.set("x-stack-actual-status", String(response.status));
  return new Response(response.body, { status: 200, headers });
}
