import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { SERVER_ERROR_LOG_PREFIX, serverErrorLog } from "./server-error-log.ts";

function appWith(status: number) {
  const logged: { fields: object; message: string }[] = [];
  const app = new Hono();
  // Hono's own handler would print the thrown error's stack into the test output.
  app.onError((_error, c) => c.text("error", 500));
  app.use("*", serverErrorLog({ error: (fields, message) => logged.push({ fields, message }) }));
  app.get("/boom", () => {
    throw new Error("handler bug");
  });
  app.get("/status", (c) => c.text("answer", status as 200));
  return { app, logged };
}

describe("serverErrorLog", () => {
  it("logs one error for a thrown error's 500 and for a handler's own 503", async () => {
    const { app, logged } = appWith(503);
    expect((await app.request("/boom")).status).toBe(500);
    expect((await app.request("/status")).status).toBe(503);
    expect(logged).toEqual([
      {
        fields: { request_id: "none", status: 500, method: "GET", route: "/boom" },
        message: `${SERVER_ERROR_LOG_PREFIX} 500 GET /boom (request none)`,
      },
      {
        fields: { request_id: "none", status: 503, method: "GET", route: "/status" },
        message: `${SERVER_ERROR_LOG_PREFIX} 503 GET /status (request none)`,
      },
    ]);
  });

  it("stays quiet for 2xx and 4xx answers", async () => {
    for (const status of [200, 404]) {
      const { app, logged } = appWith(status);
      await app.request("/status");
      expect(logged).toEqual([]);
    }
  });
});
