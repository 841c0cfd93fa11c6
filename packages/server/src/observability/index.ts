import type { DestinationStream } from "pino";
import type { DatabaseHandle } from "../db/handle.ts";
import { createLogger, type Logger } from "./logger.ts";
import { GatehouseMetrics } from "./metrics.ts";
import type { Observability } from "./observability.ts";
import { observePostgresPool } from "./postgres.ts";
import type { ObservabilitySettings } from "./settings.ts";
import { startTracing } from "./tracing.ts";

export { GatehouseMetrics } from "./metrics.ts";
export type { Observability } from "./observability.ts";
export { observeQueues } from "./queue-gauges.ts";
export { type ObservabilitySettings, QUIET_OBSERVABILITY, readObservabilitySettings } from "./settings.ts";
export type { Logger };
export { observePostgresPool };

export async function createObservability(
  settings: ObservabilitySettings,
  options: { logDestination?: DestinationStream } = {},
): Promise<Observability> {
  const metrics = new GatehouseMetrics();
  if (settings.metrics.enabled) metrics.collectProcessMetrics();
  const logger = createLogger(settings, options.logDestination);
  const tracing = settings.tracing ? await startTracing(settings.tracing) : undefined;
  return {
    settings,
    metrics,
    logger,
    tracing,
    close: async () => {
      await tracing
        ?.shutdown()
        .catch((error: unknown) => logger.warn({ err: error }, "trace export failed on close"));
    },
  };
}

/**
 * Observes the PostgreSQL pool under a database handle (see postgres.ts), the one every statement goes through;
 * PGlite has no pool.
 */
export function observeDatabasePool(handle: DatabaseHandle, observability: Observability): void {
  if (handle.pgPool) observePostgresPool(handle.pgPool, observability);
}
