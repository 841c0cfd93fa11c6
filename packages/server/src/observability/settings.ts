import type { LevelWithSilent } from "pino";

/** What GATEHOUSE_METRICS*, GATEHOUSE_LOG_*, OTEL_* ask for, parsed once at start-up (env.ts). */
export type ObservabilitySettings = {
  /** `GET /metrics`: off, public (a scrape port the operator keeps private), or behind a bearer token. */
  metrics: { enabled: false } | { enabled: true; token: string | undefined };
  /** JSON lines for log collectors, or readable lines for a developer's terminal. */
  logFormat: "json" | "pretty";
  logLevel: LevelWithSilent;
  /** OTLP/HTTP trace export; undefined when OTEL_EXPORTER_OTLP_ENDPOINT (or its traces variant) is unset. */
  tracing: { tracesUrl: string; serviceName: string } | undefined;
};

const LEVELS: readonly LevelWithSilent[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/**
 * Hand-built environments (tests) have no settings: they keep warnings and errors only, so a test run's output is
 * not one access line per request.
 */
export const QUIET_OBSERVABILITY: ObservabilitySettings = {
  metrics: { enabled: false },
  logFormat: "pretty",
  logLevel: "warn",
  tracing: undefined,
};

export function readObservabilitySettings(
  env: NodeJS.ProcessEnv,
  isDevelopment: boolean,
): ObservabilitySettings {
  return {
    metrics: readMetricsSetting(env),
    logFormat: readLogFormat(env.GATEHOUSE_LOG_FORMAT, isDevelopment),
    logLevel: readLogLevel(env.GATEHOUSE_LOG_LEVEL),
    tracing: readTracingSetting(env),
  };
}

function readMetricsSetting(env: NodeJS.ProcessEnv): ObservabilitySettings["metrics"] {
  const mode = (env.GATEHOUSE_METRICS ?? "").trim().toLowerCase();
  const token = env.GATEHOUSE_METRICS_TOKEN || undefined;
  if (mode !== "" && mode !== "public" && mode !== "off") {
    throw new Error(
      `Invalid GATEHOUSE_METRICS "${env.GATEHOUSE_METRICS}": use "public", or set GATEHOUSE_METRICS_TOKEN`,
    );
  }
  if (token !== undefined) {
    // A short token is guessable by a scraper-shaped brute force; the same rule as any bearer secret.
    if (token.length < 16) throw new Error("GATEHOUSE_METRICS_TOKEN must be at least 16 characters long");
    if (mode === "off")
      throw new Error("GATEHOUSE_METRICS=off contradicts GATEHOUSE_METRICS_TOKEN: unset one");
    return { enabled: true, token };
  }
  return mode === "public" ? { enabled: true, token: undefined } : { enabled: false };
}

function readLogFormat(value: string | undefined, isDevelopment: boolean): "json" | "pretty" {
  if (value === undefined || value === "") return isDevelopment ? "pretty" : "json";
  if (value === "json" || value === "pretty") return value;
  throw new Error(`Invalid GATEHOUSE_LOG_FORMAT "${value}": use json or pretty`);
}

function readLogLevel(value: string | undefined): LevelWithSilent {
  if (value === undefined || value === "") return "info";
  const level = value.trim().toLowerCase() as LevelWithSilent;
  if (!LEVELS.includes(level))
    throw new Error(`Invalid GATEHOUSE_LOG_LEVEL "${value}": use one of ${LEVELS.join(", ")}`);
  return level;
}

/** The OTLP exporter variables of the OpenTelemetry specification: a signal's own endpoint is used as it is. */
function readTracingSetting(env: NodeJS.ProcessEnv): ObservabilitySettings["tracing"] {
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || undefined;
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  if (!tracesEndpoint && !endpoint) return undefined;
  const tracesUrl = tracesEndpoint ?? `${endpoint!.replace(/\/+$/, "")}/v1/traces`;
  try {
    const url = new URL(tracesUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http");
  } catch {
    throw new Error(`Invalid OTLP endpoint "${tracesUrl}": use an http(s) URL`);
  }
  return { tracesUrl, serviceName: env.OTEL_SERVICE_NAME || "gatehouse" };
}
