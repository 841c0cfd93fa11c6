import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Every series Gatehouse exports starts with this (the dashboard and its test rely on it). */
export const METRIC_PREFIX = "gatehouse_";

export type DeliveryQueue = "email" | "webhook";
export type DeliveryOutcome = "sent" | "failed" | "retried";
export type SignInOutcome = "success" | "failure" | "mfa_required" | "rate_limited" | "error";

/** Seconds; from a cache hit to a slow sign-in (argon2id) to a stuck dependency. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Statements and pool waits are mostly sub-millisecond to tens of milliseconds. */
const DATABASE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/**
 * One app's series, in its own registry: tests boot several apps in one process, and prom-client's default
 * registry would mix their counts (and refuse a second registration of a name).
 */
export class GatehouseMetrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: `${METRIC_PREFIX}http_requests_total`,
    help: "HTTP requests answered, by route template, method and status",
    labelNames: ["route", "method", "status"] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: "Time to answer an HTTP request (until the handler returned its response), by route template and method",
    labelNames: ["route", "method"] as const,
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });
  readonly statementDuration = new Histogram({
    name: `${METRIC_PREFIX}db_statement_duration_seconds`,
    help: "Time of each database statement on PostgreSQL, by its first keyword",
    labelNames: ["operation"] as const,
    buckets: DATABASE_BUCKETS,
    registers: [this.registry],
  });
  readonly poolAcquireWait = new Histogram({
    name: `${METRIC_PREFIX}db_pool_acquire_wait_seconds`,
    help: "Time a statement or transaction waited for a pooled PostgreSQL connection",
    buckets: DATABASE_BUCKETS,
    registers: [this.registry],
  });
  readonly deliveries = new Counter({
    name: `${METRIC_PREFIX}delivery_outcomes_total`,
    help: "Email and webhook delivery attempts by outcome: sent, failed (given up) or retried (failed, will retry)",
    labelNames: ["queue", "outcome"] as const,
    registers: [this.registry],
  });
  readonly rateLimitRefusals = new Counter({
    name: `${METRIC_PREFIX}rate_limit_refusals_total`,
    help: "Requests refused with 429 by a rate limit, by rule",
    labelNames: ["rule"] as const,
    registers: [this.registry],
  });
  readonly signIns = new Counter({
    name: `${METRIC_PREFIX}sign_ins_total`,
    help: "Sign-in attempts by method and outcome",
    labelNames: ["method", "outcome"] as const,
    registers: [this.registry],
  });
  readonly cacheLookups = new Counter({
    name: `${METRIC_PREFIX}cache_lookups_total`,
    help: "Lookups in per-process caches, by cache and result (hit or miss)",
    labelNames: ["cache", "result"] as const,
    registers: [this.registry],
  });

  #processMetrics = false;

  /** prom-client's process and Node.js series (CPU, memory, event loop lag, GC), only for an app that serves them. */
  collectProcessMetrics(): void {
    if (this.#processMetrics) return;
    this.#processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
  }

  deliveryOutcome(queue: DeliveryQueue, outcome: DeliveryOutcome): void {
    this.deliveries.inc({ queue, outcome });
  }

  rateLimitRefused(rule: string): void {
    this.rateLimitRefusals.inc({ rule });
  }

  signIn(method: string, outcome: SignInOutcome): void {
    this.signIns.inc({ method, outcome });
  }

  cacheLookup(cache: string, hit: boolean): void {
    this.cacheLookups.inc({ cache, result: hit ? "hit" : "miss" });
  }

  /** A gauge whose value is computed when scraped; `read` returns label values -> value. */
  gaugeAtScrape<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: (set: (labels: Partial<Record<L, string>>, value: number) => void) => void | Promise<void>,
  ): void {
    new Gauge<L>({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        await read((labels, value) => this.set(labels, value));
      },
    });
  }
}
