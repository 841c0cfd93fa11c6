import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SERVER_ERROR_LOG_PREFIX, serverErrorLog } from "./server-error-log.ts";

afterEach(() => vi.restoreAllMocks());

function appWith(status: number) {
  const app = new Hono();
  app.use("*", serverErrorLog());
  app.get("/boom", () => {
    throw new Error("handler bug");
  });
  app.get("/status", (c) => c.text("answer", status as 200));
  return app;
}

describe("serverErrorLog", () => {
  it("logs one line for a thrown error's 500 and for a handler's own 503", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    expect((await appWith(503).request("/boom")).status).toBe(500);
    expect((await appWith(503).request("/status")).status).toBe(503);
    const lines = logged.mock.calls
      .map((call) => String(call[0]))
      .filter((l) => l.startsWith(SERVER_ERROR_LOG_PREFIX));
    expect(lines).toEqual([
      `${SERVER_ERROR_LOG_PREFIX} 500 GET /boom (request none)`,
      `${SERVER_ERROR_LOG_PREFIX} 503 GET /status (request none)`,
    ]);
  });

  it("stays quiet for 2xx and 4xx answers", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    await appWith(200).request("/status");
    await appWith(404).request("/status");
    expect(logged).not.toHaveBeenCalled();
  });
});
