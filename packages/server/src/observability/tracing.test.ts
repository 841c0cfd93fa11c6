/**
 * Traces through a real OTLP/HTTP receiver (a node:http server taking the exporter's JSON): the request's server span
 * continues the caller's `traceparent`, the response names the trace, and on PostgreSQL each statement is a child
 * span of the request's. Spans are flushed by closing the app, not waited for.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestServer } from "../testing/harness.ts";
import { createSignedInUser } from "../testing/users.ts";
import { TRACE_ID_HEADER } from "./request-observer.ts";
import { QUIET_OBSERVABILITY } from "./settings.ts";

type ExportedSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number };

const onPostgres = Boolean(process.env.DATABASE_URL);
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

let receiver: Server;
const received: { path: string; contentType: string; spans: ExportedSpan[]; service: string[] }[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      const payload = JSON.parse(body) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: ExportedSpan[] }[];
        }[];
      };
      received.push({
        path: request.url ?? "",
        contentType: request.headers["content-type"] ?? "",
        spans: payload.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
        service: payload.resourceSpans.flatMap((r) =>
          r.resource.attributes.filter((a) => a.key === "service.name").map((a) => a.value.stringValue ?? ""),
        ),
      });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describe("tracing with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  let server: TestServer;
  beforeAll(async () => {
    const { port } = receiver.address() as AddressInfo;
    server = await createTestServer({
      observability: {
        ...QUIET_OBSERVABILITY,
        tracing: { tracesUrl: `http://127.0.0.1:${port}/v1/traces`, serviceName: "gatehouse-under-test" },
      },
    });
  });

  it("exports the request's span under the caller's trace, and a child span per statement on PostgreSQL", async () => {
    const project = await server.createProject("Traced");
    const { user } = await createSignedInUser(server, project.id);
    const userId = user.id;
    const reply = await server.request(`/api/v1/users/${userId}`, {
      headers: project.headers("server", { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` }),
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get(TRACE_ID_HEADER)).toBe(CALLER_TRACE);

    // A request without a traceparent starts a trace of its own.
    const own = await server.request("/health");
    const ownTrace = own.headers.get(TRACE_ID_HEADER);
    expect(ownTrace).toMatch(/^[0-9a-f]{32}$/);
    expect(ownTrace).not.toBe(CALLER_TRACE);

    await server.close();
    expect(received.length).toBeGreaterThan(0);
    expect(received.every((r) => r.path === "/v1/traces" && r.contentType === "application/json")).toBe(true);
    expect(new Set(received.flatMap((r) => r.service))).toEqual(new Set(["gatehouse-under-test"]));
    const spans = received.flatMap((r) => r.spans);
    const requestSpan = spans.find((s) => s.traceId === CALLER_TRACE && s.parentSpanId === CALLER_SPAN);
    expect(requestSpan?.name).toBe("GET /api/v1/users/:user_id");
    expect(requestSpan?.kind).toBe(2); // SERVER
    expect(spans.some((s) => s.traceId === ownTrace && s.name === "GET /health")).toBe(true);

    const statements = spans.filter((s) => s.parentSpanId === requestSpan?.spanId);
    if (onPostgres) {
      expect(statements.length).toBeGreaterThan(0);
      expect(statements.every((s) => s.traceId === CALLER_TRACE && s.kind === 3)).toBe(true); // CLIENT
      expect(statements.some((s) => s.name.startsWith("SELECT"))).toBe(true);
    } else {
      // The embedded database has no pool to wrap: no statement spans there.
      expect(statements).toEqual([]);
    }
  });
});
