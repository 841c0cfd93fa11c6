import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { ServerErrorLogger } from "./responses.ts";

/**
 * The start of every message this middleware logs; the real-process tests fail on any line that contains it (in
 * JSON logs it is the start of the `msg` field).
 */
export const SERVER_ERROR_LOG_PREFIX = "[gatehouse] server error";

/**
 * Logs one error for every 5xx answer, whatever produced it (a thrown error, a handler's own 5xx, the database
 * being down), so an operator reading the log sees each one with its request id to find the details above it.
 */
export function serverErrorLog(log: ServerErrorLogger): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.res.status < 500) return;
    const requestId = (c.get("requestId" as never) as string | undefined) ?? "none";
    log.error(
      { request_id: requestId, status: c.res.status, method: c.req.method, route: routePath(c) },
      `${SERVER_ERROR_LOG_PREFIX} ${c.res.status} ${c.req.method} ${c.req.path} (request ${requestId})`,
    );
  };
}
