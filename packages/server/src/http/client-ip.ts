import type { MiddlewareHandler } from "hono";
import type { ServerEnv } from "../env.ts";

/**
 * Records the caller's IP for rate limits and session "last used" data. Behind a reverse proxy set
 * GATEHOUSE_TRUST_PROXY=true so that the left-most `x-forwarded-for` entry is used; otherwise forwarded headers are
 * ignored, because any client can forge them.
 */
export function clientIpMiddleware(env: Pick<ServerEnv, "trustProxy">): MiddlewareHandler {
  return async (c, next) => {
    let ip: string | null = null;
    if (env.trustProxy) {
      ip = c.req.header("x-forwarded-for")?.split(",")[0]?.trim() || null;
    }
    if (!ip) {
      const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
        ?.incoming;
      ip = incoming?.socket?.remoteAddress ?? null;
    }
    c.set("clientIp" as never, ip as never);
    await next();
  };
}
