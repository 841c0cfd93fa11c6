/**
 * Who sees a 500's stack trace: only a caller on this machine (by its TCP peer address) of a development server.
 * A real 500 is made by closing the database under a real app; requests come both over real sockets and through
 * `app.request()` with the bindings @hono/node-server would pass (`incoming.socket.remoteAddress`).
 */
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { serve } from "@hono/node-server";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestServer, type TestServer } from "../testing/harness.ts";
import { isLoopbackAddress } from "./client-ip.ts";

const GENERIC =
  /^Something went wrong\. Please make sure the data you entered is correct\.\n\nRequest ID: (\S+)$/;
const DETAILED = /^Internal server error \(request (\S+)\):\n/;

let development: TestServer;
let production: TestServer;

beforeAll(async () => {
  development = await createTestServer();
  production = await createTestServer({ isDevelopment: false });
  // Every API request needs the database; without it each one fails with an unexpected error, our 500.
  await development.close();
  await production.close();
});
afterEach(() => vi.restoreAllMocks());

const PATH = "/api/v1/projects/current";

function headersOf(server: TestServer, extra: Record<string, string> = {}) {
  return { ...server.internal.headers("client"), ...extra };
}

/** A request as @hono/node-server hands it over from a socket whose peer is `remoteAddress`. */
async function fromPeer(server: TestServer, remoteAddress: string, extra: Record<string, string> = {}) {
  const response = await server.app.request(
    PATH,
    { headers: headersOf(server, extra) },
    { incoming: { socket: { remoteAddress } } },
  );
  return {
    status: response.status,
    text: await response.text(),
    requestId: response.headers.get("x-stack-request-id"),
  };
}

/** The app listening on `host`, asked from that same address over a real TCP connection. */
async function overSocket(server: TestServer, host: string) {
  const listener = serve({ fetch: server.app.fetch, port: 0, hostname: host });
  await new Promise<void>((resolve) => listener.once("listening", () => resolve()));
  try {
    const { port } = listener.address() as AddressInfo;
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}${PATH}`;
    const response = await fetch(url, { headers: headersOf(server) });
    return {
      status: response.status,
      text: await response.text(),
      requestId: response.headers.get("x-stack-request-id"),
    };
  } finally {
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  }
}

function quiet() {
  return vi.spyOn(console, "error").mockImplementation(() => {});
}

/** The stack trace of the request's error, with server file paths. */
function expectStack(reply: { status: number; text: string; requestId: string | null }) {
  expect(reply.status).toBe(500);
  expect(reply.text).toMatch(DETAILED);
  expect(reply.text.match(DETAILED)![1]).toBe(reply.requestId);
  expect(reply.text).toMatch(/\n\s+at .*packages\/server\/src\//);
}

function expectGeneric(reply: { status: number; text: string; requestId: string | null }) {
  expect(reply.status).toBe(500);
  expect(reply.text).toMatch(GENERIC);
  expect(reply.text.match(GENERIC)![1]).toBe(reply.requestId);
}

/** A non-loopback address of this machine, to connect to ourselves from a non-loopback peer address. */
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry && !entry.internal && entry.family === "IPv4")?.address;

describe("a 500 in development", () => {
  it("shows the stack trace to a loopback caller, and logs the error with the request id", async () => {
    for (const peer of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      const logged = quiet();
      const reply = await fromPeer(development, peer);
      expectStack(reply);
      expect(logged).toHaveBeenCalledWith(
        expect.stringContaining(`unhandled error request_id=${reply.requestId}\n`),
      );
    }
    quiet();
    expectStack(await overSocket(development, "127.0.0.1"));
  });

  it("shows only the generic text and request id to anyone else", async () => {
    for (const peer of ["192.0.2.10", "10.0.0.3", "::ffff:192.0.2.10", "fd00::7"]) {
      const logged = quiet();
      const reply = await fromPeer(development, peer);
      expectGeneric(reply);
      expect(logged).toHaveBeenCalledWith(
        expect.stringContaining(`unhandled error request_id=${reply.requestId}\n`),
      );
    }
    quiet();
    // No socket at all (an unknown caller) is not this machine either.
    const response = await development.app.request(PATH, { headers: headersOf(development) });
    expectGeneric({
      status: response.status,
      text: await response.text(),
      requestId: response.headers.get("x-stack-request-id"),
    });
  });

  it("does not believe forwarded headers: a local proxy forwarding for someone else gets the generic text", async () => {
    quiet();
    expectGeneric(await fromPeer(development, "192.0.2.10", { "x-forwarded-for": "127.0.0.1" }));
    expectGeneric(await fromPeer(development, "127.0.0.1", { "x-forwarded-for": "203.0.113.9" }));
    expectGeneric(await fromPeer(development, "127.0.0.1", { forwarded: "for=203.0.113.9" }));
  });

  it("hides the stack from a real connection whose peer is not loopback", async () => {
    if (!externalAddress)
      throw new Error("This test needs a network interface with a non-loopback IPv4 address");
    quiet();
    expectGeneric(await overSocket(development, externalAddress));
  });
});

describe("a 500 in production", () => {
  it("shows only the generic text and request id, to loopback callers too", async () => {
    for (const peer of ["127.0.0.1", "192.0.2.10"]) {
      const logged = quiet();
      const reply = await fromPeer(production, peer);
      expectGeneric(reply);
      expect(logged).toHaveBeenCalledWith(
        expect.stringContaining(`unhandled error request_id=${reply.requestId}\n`),
      );
    }
    quiet();
    expectGeneric(await overSocket(production, "127.0.0.1"));
  });
});

describe("isLoopbackAddress", () => {
  it("knows 127.0.0.0/8 and ::1, also IPv4-mapped, and nothing else", () => {
    for (const address of ["127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1", "::FFFF:127.0.0.1"]) {
      expect(isLoopbackAddress(address), address).toBe(true);
    }
    for (const address of [
      null,
      "",
      "128.0.0.1",
      "0.0.0.0",
      "::",
      "::2",
      "fe80::1",
      "1127.0.0.1",
      "::ffff:10.0.0.1",
    ]) {
      expect(isLoopbackAddress(address), String(address)).toBe(false);
    }
  });
});
