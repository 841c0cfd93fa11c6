import { KnownError, type WireKnownError } from "@gatehouse/shared";
import type { ErrorHandler } from "hono";
import type { ServerEnv } from "../env.ts";
import { isLoopbackAddress, socketAddress } from "./client-ip.ts";
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
  const body: WireKnownError = error.toJSON();
  return new Response(JSON.stringify(body, null, 2), {
    status: error.status,
    headers: { "content-type": JSON_TYPE, "x-stack-known-error": error.code },
  });
}

/**
 * Turns anything a handler threw into a response. Known errors and status errors are the caller's fault (4xx);
 * anything else is our bug: a logged 500, with the stack trace in the body only when `showDetails`.
 */
export function errorToResponse(
  error: unknown,
  options: { requestId: string; showDetails: boolean; log?: ServerErrorLogger },
): Response {
  if (error instanceof KnownError) return knownErrorResponse(error);
  if (error instanceof StatusError) return textResponse(error.message, error.status, error.headers);
  if (options.log) options.log.error({ err: error, request_id: options.requestId }, "unhandled error");
  else console.error(`[request ${options.requestId}] unhandled error`, error);
  const text = options.showDetails
    ? `Internal server error (request ${options.requestId}):\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}`
    : `Something went wrong. Please make sure the data you entered is correct.\n\nRequest ID: ${options.requestId}`;
  return textResponse(text, 500);
}

/** Where unexpected errors are written (the app's logger, observability/logger.ts); else the console. */
export type ServerErrorLogger = { error: (fields: object, message: string) => void };

/** Headers a proxy adds when it forwards someone else's request. */
const FORWARDING_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip"];

/**
 * The app's `onError`. A stack trace names server files and code, so only a developer on this machine sees it: in
 * development, and only when the TCP peer is loopback (never a forwarded header, which anyone can send) and is not
 * a local proxy forwarding a request from elsewhere.
 */
export function serverErrorHandler(
  env: Pick<ServerEnv, "isDevelopment">,
  log?: ServerErrorLogger,
): ErrorHandler {
  return (error, c) => {
    const localCaller =
      isLoopbackAddress(socketAddress(c)) &&
      FORWARDING_HEADERS.every((name) => c.req.header(name) === undefined);
    return errorToResponse(error, {
      requestId: (c.get("requestId" as never) as string | undefined) ?? "none",
      showDetails: env.isDevelopment && localCaller,
      ...(log ? { log } : {}),
    });
  };
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
