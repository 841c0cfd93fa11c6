import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { apiResponseHeaders, requestBodyLimit } from "./api-middleware.ts";
import { textResponse } from "./responses.ts";

const LIMIT = 1024;

/** A small app with the two API middlewares; its route echoes how many bytes of body it read. */
function appWithMiddlewares(): Hono {
  const app = new Hono();
  app.use("*", apiResponseHeaders());
  app.use("*", requestBodyLimit({ maxSize: LIMIT, onError: () => textResponse("too large", 413) }));
  app.post("/echo", async (c) => c.json({ length: (await c.req.raw.arrayBuffer()).byteLength }));
  app.get("/redirect", () => Response.redirect("https://example.com/next", 302));
  app.get("/cached", () => new Response("x", { headers: { "cache-control": "max-age=60" } }));
  return app;
}

/** A body sent in chunks without a content-length, as `transfer-encoding: chunked` arrives. */
function chunked(totalBytes: number): RequestInit {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= totalBytes) return controller.close();
      const size = Math.min(64 * 1024, totalBytes - sent);
      sent += size;
      controller.enqueue(new Uint8Array(size).fill(97));
    },
  });
  return { method: "POST", body, duplex: "half" } as RequestInit;
}

describe("requestBodyLimit", () => {
  it("takes a body up to the limit, whole, with or without a content-length", async () => {
    const app = appWithMiddlewares();
    const exact = await app.request("/echo", { method: "POST", body: "a".repeat(LIMIT) });
    expect(exact.status).toBe(200);
    expect(await exact.json()).toEqual({ length: LIMIT });
    const streamed = await app.request("/echo", chunked(LIMIT));
    expect(streamed.status).toBe(200);
    expect(await streamed.json()).toEqual({ length: LIMIT });
  });

  it("refuses a declared length over the limit, having read the body so the connection can go on", async () => {
    const response = await appWithMiddlewares().request("/echo", {
      method: "POST",
      body: "a".repeat(LIMIT + 1),
      headers: { "content-length": String(LIMIT + 1) },
    });
    expect(response.status).toBe(413);
    expect(response.headers.get("connection")).toBeNull();
    expect(await response.text()).toBe("too large");
  });

  it("counts a chunked body as it arrives and refuses it past the limit", async () => {
    const response = await appWithMiddlewares().request("/echo", chunked(LIMIT + 1));
    expect(response.status).toBe(413);
    expect(response.headers.get("connection")).toBeNull();
  });

  it("stops reading a refused body after 16 MiB and closes the connection instead", async () => {
    const response = await appWithMiddlewares().request("/echo", chunked(16 * 1024 * 1024 + 1024));
    expect(response.status).toBe(413);
    expect(response.headers.get("connection")).toBe("close");
  });
});

describe("apiResponseHeaders", () => {
  it("gives each response its own request id, across many requests", async () => {
    const app = appWithMiddlewares();
    const ids = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const response = await app.request("/echo", { method: "POST", body: "{}" });
      const id = response.headers.get("x-stack-request-id") ?? "";
      expect(id).toMatch(/^[A-Za-z0-9_-]{16}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(300);
  });

  it("sets the headers on a response whose own headers are immutable", async () => {
    const response = await appWithMiddlewares().request("/redirect");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("https://example.com/next");
    expect(response.headers.get("x-stack-request-id")).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("cache-control")).toBe("no-store, max-age=0");
  });

  it("keeps a cache-control the route chose", async () => {
    const response = await appWithMiddlewares().request("/cached");
    expect(response.headers.get("cache-control")).toBe("max-age=60");
    expect(await response.text()).toBe("x");
  });
});
