import type { MiddlewareHandler } from "hono";

/** The start of every line this middleware writes; the real-process tests fail on any such line in the log. */
export const SERVER_ERROR_LOG_PREFIX = "[gatehouse] server error";

/**
 * Writes one line for every 5xx answer, whatever produced it (a thrown error, a handler's own 5xx, the database
 * being down), so an operator reading the log sees each one with its request id to find the details above it.
 */
export function serverErrorLog(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.res.status < 500) return;
    const requestId = (c.get("requestId" as never) as string | undefined) ?? "none";
    console.error(
      `${SERVER_ERROR_LOG_PREFIX} ${c.res.status} ${c.req.method} ${c.req.path} (request ${requestId})`,
    );
  };
}
