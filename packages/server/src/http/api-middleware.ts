import { randomBytes } from "node:crypto";
import type { MiddlewareHandler } from "hono";
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

/**
 * Wraps every `/api/*` response with the protocol's response headers (PROTOCOL.md §1.5): request id, no caching
 * unless the route chose otherwise, CORS, and the override-error-status rewrite (§1.6).
 */
export function apiResponseHeaders(): MiddlewareHandler {
  return async (c, next) => {
    const requestId = randomBytes(12).toString("base64url").slice(0, 16);
    c.set("requestId" as never, requestId as never);
    if (!(ALLOWED_METHODS as readonly string[]).includes(c.req.method)) {
      c.res = textResponse(`Method ${c.req.method} is not allowed.`, 405, {
        allow: ALLOWED_METHODS.join(", "),
      });
    } else if (c.req.method === "OPTIONS") {
      c.res = new Response(null, { status: 200 });
    } else {
      await next();
    }
    let response = c.res;
    if (readProtocolHeader(c.req.raw.headers, "override-error-status") !== undefined) {
      response = applyOverrideErrorStatus(response);
    }
    const headers = new Headers(response.headers);
    headers.set("x-stack-request-id", requestId);
    if (!headers.has("cache-control")) headers.set("cache-control", "no-store, max-age=0");
    for (const [name, value] of Object.entries(CORS_HEADERS)) headers.set(name, value);
    c.res = new Response(response.body, { status: response.status, headers });
  };
}
