import { randomFillSync } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { CORS_ALLOWED_HEADERS, readProtocolHeader } from "./protocol-headers.ts";
import { applyOverrideErrorStatus, textResponse } from "./responses.ts";

export const ALLOWED_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": ALLOWED_METHODS.join(", "),
  "access-control-allow-headers": CORS_ALLOWED_HEADERS,
  "access-control-expose-headers": "content-type, x-stack-actual-status, x-stack-known-error",
  "access-control-max-age": "86400",
  vary: CORS_ALLOWED_HEADERS,
};

const DEFAULT_CACHE_CONTROL = "no-store, max-age=0";

/** The request's protocol response headers, set by `apiResponseHeaders` for the router (see `withProtocolHeaders`). */
const PROTOCOL_HEADERS_KEY = "protocolHeaders";
/** The response the router built with them already in (see `withProtocolHeaders`). */
const COMPLETE_RESPONSE_KEY = "responseWithProtocolHeaders";

/**
 * The headers of a route's JSON answer with the protocol's own added, as a plain object, and the response marked so
 * that `apiResponseHeaders` leaves it alone. Why: the Node adapter writes a plain header object straight to the
 * socket, while reading or setting `response.headers` afterwards turns it into a `Headers`, which costs ~30 µs of a
 * session read (bench/profile.mjs). The route's cache-control wins over the default, as in `apiResponseHeaders`.
 */
export function withProtocolHeaders(
  c: Context,
  headers: Record<string, string> | undefined,
  build: (headers: Record<string, string>) => Response,
): Response {
  const protocol = c.get(PROTOCOL_HEADERS_KEY as never) as Record<string, string> | undefined;
  if (!protocol) return build(headers ?? {});
  const response = build({ "cache-control": DEFAULT_CACHE_CONTROL, ...headers, ...protocol });
  c.set(COMPLETE_RESPONSE_KEY as never, response as never);
  return response;
}

/**
 * Wraps every `/api/*` response with the protocol's response headers (PROTOCOL.md §1.5): request id, no caching
 * unless the route chose otherwise, CORS, and the override-error-status rewrite (§1.6).
 */
export function apiResponseHeaders(): MiddlewareHandler {
  return async (c, next) => {
    const requestId = newRequestId();
    c.set("requestId" as never, requestId as never);
    c.set(PROTOCOL_HEADERS_KEY as never, { "x-stack-request-id": requestId, ...CORS_HEADERS } as never);
    if (!(ALLOWED_METHODS as readonly string[]).includes(c.req.method)) {
      c.res = textResponse(`Method ${c.req.method} is not allowed.`, 405, {
        allow: ALLOWED_METHODS.join(", "),
      });
    } else if (c.req.method === "OPTIONS") {
      c.res = new Response(null, { status: 200 });
    } else {
      await next();
    }
    const original = c.res;
    let response = original;
    if (readProtocolHeader(c.req.raw.headers, "override-error-status") !== undefined) {
      response = applyOverrideErrorStatus(response);
    } else if (response === c.get(COMPLETE_RESPONSE_KEY as never)) {
      return;
    }
    // The headers are set in place: a new response would need the body as a stream, which the Node adapter then
    // pipes instead of writing the text at once. Responses with immutable headers (a fetched or redirect response)
    // are copied.
    const setProtocolHeaders = (headers: Headers) => {
      headers.set("x-stack-request-id", requestId);
      if (!headers.has("cache-control")) headers.set("cache-control", DEFAULT_CACHE_CONTROL);
      for (const [name, value] of Object.entries(CORS_HEADERS)) headers.set(name, value);
    };
    try {
      setProtocolHeaders(response.headers);
    } catch {
      const headers = new Headers(response.headers);
      setProtocolHeaders(headers);
      response = new Response(response.body, { status: response.status, headers });
    }
    // Assigning `c.res` copies the response into a new one (Hono merges the old one's headers), so only a
    // replaced response is assigned.
    if (response !== original) c.res = response;
  };
}

/**
 * How much of a refused body is read and thrown away so the connection stays usable. A client that sent more than
 * this is cut off instead (its connection closed, the rest unread).
 */
const MAX_DISCARDED_BYTES = 16 * 1024 * 1024;

/**
 * Refuses request bodies over `maxSize` bytes with `onError`'s answer. A body with a content-length is judged by
 * that header alone (Node's HTTP parser never reads past it), so an accepted one is not turned into a stream here;
 * a chunked body is counted as it arrives and handed on as read.
 *
 * A refused body is still read to its end (up to MAX_DISCARDED_BYTES) before the answer: a client writing its body
 * does not read answers, so answering early and closing makes it see a broken connection rather than the 413, and
 * answering early without closing leaves the unread bytes where its next request should start.
 */
export function requestBodyLimit(options: { maxSize: number; onError: () => Response }): MiddlewareHandler {
  const { maxSize } = options;
  return async (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
    const request = c.req.raw;
    const length = request.headers.get("content-length");
    const chunked = request.headers.has("transfer-encoding");
    if (length !== null && !chunked) {
      if (Number.parseInt(length, 10) <= maxSize) return next();
      return refuse(await discard(request.body?.getReader()));
    }
    if (!request.body) return next();
    const reader = request.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxSize) return refuse(await discard(reader, size));
      chunks.push(value);
    }
    c.req.raw = new Request(request, { body: Buffer.concat(chunks, size) });
    return next();
  };

  function refuse(readToTheEnd: boolean): Response {
    const response = options.onError();
    if (!readToTheEnd) response.headers.set("connection", "close");
    return response;
  }
}

/** Reads a body to its end and drops it; false when it went past MAX_DISCARDED_BYTES and was left unread. */
async function discard(reader: ReadableStreamDefaultReader<Uint8Array> | undefined, alreadyRead = 0) {
  if (!reader) return true;
  let read = alreadyRead;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return true;
    read += value.length;
    if (read > MAX_DISCARDED_BYTES) {
      await reader.cancel().catch(() => {});
      return false;
    }
  }
}

// Request ids are 16 base64url characters (96 random bits). Random bytes are drawn 128 ids at a time: one call
// into the system's generator per request is a visible share of a cheap request's cost.
const REQUEST_ID_BYTES = 12;
const randomPool = Buffer.alloc(REQUEST_ID_BYTES * 128);
let randomPoolOffset = randomPool.length;

function newRequestId(): string {
  if (randomPoolOffset === randomPool.length) {
    randomFillSync(randomPool);
    randomPoolOffset = 0;
  }
  const id = randomPool.toString("base64url", randomPoolOffset, randomPoolOffset + REQUEST_ID_BYTES);
  randomPoolOffset += REQUEST_ID_BYTES;
  return id;
}
