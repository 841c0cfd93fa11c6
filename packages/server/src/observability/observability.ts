import type { Logger } from "./logger.ts";
import type { GatehouseMetrics } from "./metrics.ts";
import type { ObservabilitySettings } from "./settings.ts";
import type { Tracing } from "./tracing.ts";

/** One app's metrics, logger and (when configured) tracing; AppDeps carries it as `observability`. */
export type Observability = {
  settings: ObservabilitySettings;
  metrics: GatehouseMetrics;
  logger: Logger;
  /** Undefined unless an OTLP endpoint is configured. */
  tracing: Tracing | undefined;
  /** Sends the spans still buffered; call after the last request is answered. */
  close: () => Promise<void>;
};
