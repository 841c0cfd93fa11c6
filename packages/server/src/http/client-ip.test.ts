import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { readServerEnv } from "../env.ts";
import { clientAddress, clientIpMiddleware, parseProxyTrust } from "./client-ip.ts";

const SECRET = { GATEHOUSE_SECRET: "x".repeat(32), GATEHOUSE_DATA_DIR: "/nonexistent-gatehouse-test" };

describe("GATEHOUSE_TRUST_PROXY", () => {
  it("reads true as one hop, a number as that many, and a list as proxy addresses", () => {
    expect(parseProxyTrust(undefined)).toBeNull();
    expect(parseProxyTrust("false")).toBeNull();
    expect(parseProxyTrust("true")).toEqual({ hops: 1 });
    expect(parseProxyTrust("2")).toEqual({ hops: 2 });
    const list = parseProxyTrust("10.0.0.0/8, 192.168.1.7, fd00::/8");
    expect(list && "proxies" in list && list.proxies.check("10.1.2.3", "ipv4")).toBe(true);
    expect(readServerEnv({ ...SECRET, GATEHOUSE_TRUST_PROXY: "1" }).trustProxy).toEqual({ hops: 1 });
  });

  it("refuses what is neither a hop count nor addresses, with a message naming the entry", () => {
    expect(() => parseProxyTrust("yes")).toThrow(/"yes" is not an IP address or CIDR range/);
    expect(() => parseProxyTrust("10.0.0.0/40")).toThrow(/invalid prefix length/);
    expect(() => parseProxyTrust("999")).toThrow(/more than 20 proxy hops/);
  });
});

describe("the client's address", () => {
  const oneHop = parseProxyTrust("1");
  const twoHops = parseProxyTrust("2");
  const proxies = parseProxyTrust("10.0.0.0/8");

  it("ignores x-forwarded-for when no proxy is trusted", () => {
    expect(clientAddress(null, "203.0.113.5", "198.51.100.1")).toBe("203.0.113.5");
  });

  it("with one hop takes the entry the proxy appended, not what the client wrote before it", () => {
    // The client sent "x-forwarded-for: 1.2.3.4" itself; the proxy appended the address it really saw.
    expect(clientAddress(oneHop, "10.0.0.2", "1.2.3.4, 198.51.100.9")).toBe("198.51.100.9");
    expect(clientAddress(oneHop, "10.0.0.2", "198.51.100.9")).toBe("198.51.100.9");
  });

  it("with two hops takes the second entry from the right", () => {
    expect(clientAddress(twoHops, "10.0.0.2", "1.2.3.4, 198.51.100.9, 10.0.0.3")).toBe("198.51.100.9");
    // Fewer entries than hops: the header cannot be what our proxies wrote, so the peer stands.
    expect(clientAddress(twoHops, "10.0.0.2", "198.51.100.9")).toBe("10.0.0.2");
  });

  it("with a proxy list skips our proxies from the right, and believes the header only from one of them", () => {
    expect(clientAddress(proxies, "10.0.0.2", "1.2.3.4, 198.51.100.9, 10.0.0.3")).toBe("198.51.100.9");
    expect(clientAddress(proxies, "::ffff:10.0.0.2", "198.51.100.9")).toBe("198.51.100.9");
    // Straight from the internet: whatever the header says is the caller's own claim.
    expect(clientAddress(proxies, "203.0.113.5", "198.51.100.9")).toBe("203.0.113.5");
  });

  it("does not take a non-address entry as the client", () => {
    expect(clientAddress(oneHop, "10.0.0.2", "1.2.3.4, not-an-ip")).toBe("10.0.0.2");
    expect(clientAddress(proxies, "10.0.0.2", "unknown, 10.0.0.9")).toBe("10.0.0.2");
  });

  it("is what the middleware records for the request", async () => {
    const app = new Hono();
    app.use("*", clientIpMiddleware({ trustProxy: oneHop }));
    app.get("/", (c) => c.text(String(c.get("clientIp" as never))));
    const response = await app.request(
      "/",
      { headers: { "x-forwarded-for": "6.6.6.6, 198.51.100.9" } },
      { incoming: { socket: { remoteAddress: "10.0.0.2" } } },
    );
    expect(await response.text()).toBe("198.51.100.9");
  });
});
