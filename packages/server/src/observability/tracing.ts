import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Context,
  createTraceState,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { ObservabilitySettings } from "./settings.ts";

/**
 * Spans for one app, without OpenTelemetry's process-wide registrations: the request's span travels in this
 * instance's own AsyncLocalStorage, so the statement wrapper (postgres.ts) finds its parent however the bundle
 * imports pg, and several apps in one process (tests) never see each other's spans.
 */
export type Tracing = {
  tracer: Tracer;
  /** The request span the current code runs under, if any. */
  currentSpan: () => Span | undefined;
  /** Runs `work` with `span` as the parent of the spans it starts. */
  runInSpan: <T>(span: Span, work: () => T) => T;
  /** The span's parent context, for `tracer.startSpan(name, options, context)`. */
  contextOf: (span: Span) => Context;
  /** Exports what is buffered and stops; spans ended before this are sent. */
  shutdown: () => Promise<void>;
};

/**
 * OTLP/HTTP (JSON) export to `settings.tracesUrl`, batched. The SDK is imported only when tracing is on: an
 * instance without it loads none of it. OTEL_EXPORTER_OTLP_HEADERS and the BSP_* variables are read by the SDK.
 */
export async function startTracing(
  settings: NonNullable<ObservabilitySettings["tracing"]>,
): Promise<Tracing> {
  const [
    { BasicTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    semconv,
  ] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/semantic-conventions"),
  ]);
  const exporter = new OTLPTraceExporter({ url: settings.tracesUrl });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const storage = new AsyncLocalStorage<Span>();
  return {
    tracer: provider.getTracer("gatehouse"),
    currentSpan: () => storage.getStore(),
    runInSpan: (span, work) => storage.run(span, work),
    contextOf: (span) => trace.setSpan(ROOT_CONTEXT, span),
    shutdown: () => provider.shutdown(),
  };
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/**
 * The caller's W3C Trace Context (`traceparent`, `tracestate`) as a parent context, or the root when absent or
 * malformed (the spec says to start a new trace then). Parsed here rather than through a global propagator, which
 * would be one per process.
 */
export function incomingTraceContext(headers: Headers): Context {
  const match = TRACEPARENT.exec((headers.get("traceparent") ?? "").trim().toLowerCase());
  if (!match) return ROOT_CONTEXT;
  const [, version, traceId, spanId, flags] = match;
  if (version === "ff" || /^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return ROOT_CONTEXT;
  const state = headers.get("tracestate");
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16) & 1,
    isRemote: true,
    ...(state ? { traceState: createTraceState(state) } : {}),
  });
}

export { SpanKind, SpanStatusCode };
