import { randomBytes } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { readProtocolHeader } from "../http/protocol-headers.ts";
import type { Observability } from "./index.ts";
import { signInMethodOf, signInOutcomeOf } from "./sign-in-outcomes.ts";
import { incomingTraceContext, SpanKind, SpanStatusCode } from "./tracing.ts";

/** Names the request's trace when tracing is on, so a caller can quote it (as they quote the request id). */
export const TRACE_ID_HEADER = "x-gatehouse-trace-id";

/**
 * The outermost middleware: one server span per request (a child of the caller's `traceparent`), the request
 * counter and latency by route template, sign-in outcomes, and one access log line. Nothing of the request's
 * headers, query or body is logged: only the route template, ids, the status and the time.
 */
export function observeRequests(observability: Observability): MiddlewareHandler {
  const { metrics, tracing } = observability;
  // The access line's fields are the fixed ones below, none of them secret, so it skips the logger's redaction:
  // matching every line against the censored paths took ~50 µs of a 600 µs session read (bench/profile.mjs).
  const logger = observability.logger.child({}, { redact: { paths: [] } });
  // prom-client hashes a label object on every call; the labelled series are looked up by one string instead. Their
  // number is bounded: route templates (never URLs) by method and status.
  const requestCounters = new Map<string, { inc(): void }>();
  const durations = new Map<string, { observe(seconds: number): void }>();
  return async (c, next) => {
    const started = performance.now();
    const span = tracing?.tracer.startSpan(
      c.req.method,
      { kind: SpanKind.SERVER, attributes: { "http.request.method": c.req.method, "url.path": c.req.path } },
      incomingTraceContext(c.req.raw.headers),
    );
    try {
      if (span && tracing) await tracing.runInSpan(span, next);
      else await next();
    } catch (error) {
      span?.setStatus({ code: SpanStatusCode.ERROR }).end();
      throw error;
    }
    const durationMs = performance.now() - started;
    const route = routeTemplate(c);
    const method = c.req.method;
    const status = actualStatus(c);
    labelled(requestCounters, `${route} ${method} ${status}`, () =>
      metrics.httpRequests.labels({ route, method, status: String(status) }),
    ).inc();
    labelled(durations, `${route} ${method}`, () => metrics.httpDuration.labels({ route, method })).observe(
      durationMs / 1000,
    );
    const signInMethod = signInMethodOf(method, route);
    if (signInMethod) metrics.signIn(signInMethod, signInOutcomeOf(status, c.res.headers));

    const traceId = span?.spanContext().traceId;
    if (span) {
      span.updateName(`${method} ${route}`);
      span.setAttribute("http.route", route);
      span.setAttribute("http.response.status_code", status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      setHeader(c, TRACE_ID_HEADER, traceId!);
    }
    const requestId = (c.get("requestId" as never) as string | undefined) ?? localRequestId();
    const projectId = c.req.header("x-stack-project-id");
    logger.info(
      {
        request_id: requestId,
        ...(projectId ? { project_id: projectId.slice(0, 100) } : {}),
        route,
        method,
        status,
        duration_ms: Math.round(durationMs * 10) / 10,
        ...(traceId ? { trace_id: traceId } : {}),
      },
      "request",
    );
  };
}

function labelled<T>(series: Map<string, T>, key: string, create: () => T): T {
  let found = series.get(key);
  if (found === undefined) {
    found = create();
    series.set(key, found);
  }
  return found;
}

/**
 * The matched route's path as registered (`/api/v1/users/:user_id`), never the URL: label values stay few. After
 * the chain ran, the route index is the handler that answered; a request nothing answered ends on a wildcard.
 */
function routeTemplate(c: Context): string {
  return routePath(c) || "unmatched";
}

/**
 * The status before x-stack-override-error-status turned a 4xx into a 200 for the browser. Only a request that asked
 * for that can have it: other responses' headers are not read, which would turn the Node adapter's plain header
 * object into a `Headers` (see http/api-middleware.ts `withProtocolHeaders`).
 */
function actualStatus(c: Context): number {
  const response = c.res;
  if (readProtocolHeader(c.req.raw.headers, "override-error-status") === undefined) return response.status;
  const actual = Number(response.headers.get("x-stack-actual-status"));
  return Number.isInteger(actual) && actual > 0 ? actual : response.status;
}

/** Sets a header in place; responses with immutable headers (fetched, redirects) are copied. */
function setHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    const headers = new Headers(c.res.headers);
    headers.set(name, value);
    c.res = new Response(c.res.body, { status: c.res.status, statusText: c.res.statusText, headers });
  }
}

/** Requests outside /api get no protocol request id; their log line still needs one to be told apart. */
function localRequestId(): string {
  return `local-${randomBytes(8).toString("hex")}`;
}
