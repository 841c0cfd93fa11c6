import { createHash, timingSafeEqual } from "node:crypto";
import type { Hono } from "hono";
import type { Observability } from "./index.ts";

export const METRICS_PATH = "/metrics";

/**
 * `GET /metrics` in Prometheus' text format. Off unless GATEHOUSE_METRICS_TOKEN or GATEHOUSE_METRICS=public is set;
 * off, it answers as an unknown path does (it is claimed either way, so the dashboard's app shell never answers it).
 */
export function mountMetrics(app: Hono, observability: Observability): void {
  const setting = observability.settings.metrics;
  const { registry } = observability.metrics;
  app.get(METRICS_PATH, async (c) => {
    if (!setting.enabled) return c.text("Not found", 404);
    if (setting.token !== undefined && !bearerMatches(c.req.header("authorization"), setting.token)) {
      return c.text("A bearer token (GATEHOUSE_METRICS_TOKEN) is required to read the metrics.", 401, {
        "www-authenticate": 'Bearer realm="metrics"',
      });
    }
    return c.body(await registry.metrics(), 200, {
      "content-type": registry.contentType,
      "cache-control": "no-store",
    });
  });
}

/** Compares SHA-256 digests in constant time, so neither the token's content nor its length leaks through timing. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!match) return false;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(match[1]!), digest(token));
}
