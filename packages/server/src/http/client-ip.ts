import type { Context, MiddlewareHandler } from "hono";
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
    if (!ip) ip = socketAddress(c);
    c.set("clientIp" as never, ip as never);
    await next();
  };
}

/**
 * The address of the TCP peer, as @hono/node-server exposes it (`c.env.incoming`); null under `app.request()`
 * without bindings. Unlike `x-forwarded-for` it cannot be forged, so it is what decides who is on this machine.
 */
export function socketAddress(c: Context): string | null {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? null;
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 addresses (a dual-stack socket reports `::ffff:127.0.0.1`). */
export function isLoopbackAddress(address: string | null): boolean {
  if (!address) return false;
  return address === "::1" || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(address);
}
