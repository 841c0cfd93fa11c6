import { BlockList, isIP } from "node:net";
import type { Context, MiddlewareHandler } from "hono";

/**
 * Which reverse proxies stand in front of the server (GATEHOUSE_TRUST_PROXY):
 * - `{ hops: N }`: exactly N proxies, each appending the address it saw to `x-forwarded-for`;
 * - `{ proxies }`: the proxies' own addresses (CIDR ranges); entries they appended are skipped from the right.
 * Without it, forwarded headers are ignored.
 */
export type ProxyTrust = { hops: number } | { proxies: BlockList; description: string };

/**
 * Parses GATEHOUSE_TRUST_PROXY: `true` (one proxy), a hop count (`2`), or a comma-separated list of proxy
 * addresses and CIDR ranges (`10.0.0.0/8, fd00::/8`). Unset, empty or `false`: trust no forwarded header.
 */
export function parseProxyTrust(value: string | undefined): ProxyTrust | null {
  const text = (value ?? "").trim();
  if (text === "" || text === "false" || text === "0") return null;
  if (text === "true") return { hops: 1 };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 20)
      throw new Error(`GATEHOUSE_TRUST_PROXY=${text}: more than 20 proxy hops is not a real setup`);
    return { hops };
  }
  const proxies = new BlockList();
  for (const entry of text.split(",").map((part) => part.trim())) {
    const [address, prefix] = entry.split("/");
    const family = isIP(address ?? "");
    if (family === 0) {
      throw new Error(
        `GATEHOUSE_TRUST_PROXY: "${entry}" is not an IP address or CIDR range (use true, a hop count, or a list like 10.0.0.0/8,fd00::/8)`,
      );
    }
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) {
      proxies.addAddress(address!, type);
    } else {
      const bits = Number(prefix);
      if (!/^\d+$/.test(prefix) || bits > (family === 4 ? 32 : 128)) {
        throw new Error(`GATEHOUSE_TRUST_PROXY: "${entry}" has an invalid prefix length`);
      }
      proxies.addSubnet(address!, bits, type);
    }
  }
  return { proxies, description: text };
}

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is the IPv4 address 10.0.0.1. */
function plainAddress(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}

function isTrustedProxy(proxies: BlockList, address: string | null): boolean {
  if (!address) return false;
  const plain = plainAddress(address);
  const family = isIP(plain);
  return family !== 0 && proxies.check(plain, family === 4 ? "ipv4" : "ipv6");
}

/** Whether the TCP peer is one of the listed proxies (for `{ hops }`, every peer is taken for the proxy). */
export function isTrustedProxyPeer(trust: ProxyTrust, peer: string | null): boolean {
  return "hops" in trust || isTrustedProxy(trust.proxies, peer);
}

/**
 * The client's address given the TCP peer and `x-forwarded-for`. The left part of that header is whatever the
 * client sent, so it is never read: with N hops the client is the N-th entry from the right (the one the outermost
 * proxy appended); with a list of proxies, the right-most entry that is not one of them, and only when the TCP peer
 * is one of them (a request that reached us directly proves nothing with its headers).
 */
export function clientAddress(
  trust: ProxyTrust | null,
  peer: string | null,
  forwardedFor: string | undefined,
): string | null {
  if (!trust || !forwardedFor) return peer;
  const entries = forwardedFor
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if ("hops" in trust) {
    const entry = entries[entries.length - trust.hops];
    return entry && isIP(plainAddress(entry)) ? plainAddress(entry) : peer;
  }
  if (!isTrustedProxy(trust.proxies, peer)) return peer;
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = plainAddress(entries[index]!);
    if (isIP(entry) === 0) return peer;
    if (!isTrustedProxy(trust.proxies, entry)) return entry;
  }
  // Every hop was one of our proxies: the left-most is the closest we know to the client.
  return entries[0] ? plainAddress(entries[0]) : peer;
}

/** Records the caller's IP for rate limits and session "last used" data (see `clientAddress`). */
export function clientIpMiddleware(env: { trustProxy: ProxyTrust | null }): MiddlewareHandler {
  return async (c, next) => {
    const ip = clientAddress(env.trustProxy, socketAddress(c), c.req.header("x-forwarded-for"));
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
