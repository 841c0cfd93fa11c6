import { AsyncResource } from "node:async_hooks";
import type pg from "pg";
import type { Observability } from "./observability.ts";
import { SpanKind, SpanStatusCode } from "./tracing.ts";

const OBSERVED = Symbol("gatehouse.observed");
type Observed = { [OBSERVED]?: true };
type QueryCallback = (error: Error | null, result?: unknown) => void;

/**
 * Pool gauges (connections in use, idle, and callers waiting), the wait for a connection, and one timing (and, with
 * tracing on, one child span of the request's span) per statement. Explicit wrappers on this pool's objects rather
 * than a require hook, which would not see the bundled server's imports.
 *
 * Call it once per pool, before or after the first query: clients are wrapped as the pool hands them out ('acquire'),
 * so connections opened earlier are covered too. The `onConnect` setup statement of a new connection runs before
 * that and is not counted.
 */
export function observePostgresPool(pool: pg.Pool, observability: Observability): void {
  if ((pool as Observed)[OBSERVED]) return;
  (pool as Observed)[OBSERVED] = true;
  const { metrics } = observability;

  metrics.gaugeAtScrape(
    "db_pool_connections",
    "PostgreSQL connections of the pool, by state (in_use, idle)",
    ["state"],
    (set) => {
      set({ state: "in_use" }, pool.totalCount - pool.idleCount);
      set({ state: "idle" }, pool.idleCount);
    },
  );
  metrics.gaugeAtScrape(
    "db_pool_waiting_clients",
    "Statements and transactions waiting for a pooled PostgreSQL connection",
    [],
    (set) => set({}, pool.waitingCount),
  );

  const connect = pool.connect.bind(pool) as (callback?: (...args: unknown[]) => void) => unknown;
  // pg-pool hands a queued caller the connection from inside whoever released it; running the callback in the
  // caller's own async resource keeps its context (the request span) for the statements it then sends. Not
  // `AsyncLocalStorage.bind`: Node 20 defines two deprecation wrappers on every function it binds, ~16 µs of each
  // session read (bench/profile.mjs).
  (pool as unknown as { connect: typeof connect }).connect = (callback) => {
    const started = performance.now();
    const waited = () => metrics.poolAcquireWait.observe((performance.now() - started) / 1000);
    if (typeof callback === "function") {
      const caller = new AsyncResource("gatehouse.pool.connect");
      return connect((...args: unknown[]) => {
        waited();
        try {
          caller.runInAsyncScope(callback, undefined, ...args);
        } finally {
          caller.emitDestroy();
        }
      });
    }
    return (connect() as Promise<unknown>).then(
      (client) => {
        waited();
        return client;
      },
      (error: unknown) => {
        waited();
        throw error;
      },
    );
  };

  pool.on("acquire", (client) => observeClient(client, observability));
}

function observeClient(client: pg.PoolClient, observability: Observability): void {
  if ((client as Observed)[OBSERVED]) return;
  (client as Observed)[OBSERVED] = true;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: typeof query }).query = (...args: unknown[]) => {
    const config = args[0];
    // A Submittable (cursor, stream) reports its end through events; those few are passed through unmeasured.
    if (config && typeof (config as { submit?: unknown }).submit === "function") return query(...args);
    const finish = startStatement(observability, config);
    const last = args.length - 1;
    if (typeof args[last] === "function") {
      const callback = args[last] as QueryCallback;
      args[last] = (error: Error | null, result?: unknown) => {
        finish(error);
        callback(error, result);
      };
      return query(...args);
    }
    const result = query(...args) as Promise<unknown>;
    return result.then(
      (value) => {
        finish(null);
        return value;
      },
      (error: Error) => {
        finish(error);
        throw error;
      },
    );
  };
}

/** Starts timing one statement (and its span); the returned function ends both. */
function startStatement(observability: Observability, config: unknown): (error: Error | null) => void {
  const text = typeof config === "string" ? config : ((config as { text?: string } | null)?.text ?? "");
  const name = typeof config === "object" && config ? (config as { name?: string }).name : undefined;
  const operation = operationOf(text);
  const started = performance.now();
  const tracing = observability.tracing;
  const parent = tracing?.currentSpan();
  const span =
    tracing && parent
      ? tracing.tracer.startSpan(
          name ? `${operation} ${name}` : operation,
          {
            kind: SpanKind.CLIENT,
            attributes: {
              "db.system.name": "postgresql",
              "db.operation.name": operation,
              // Statements carry their values as parameters, never in the text; the text alone is safe to export.
              "db.query.text": text.length > 2000 ? `${text.slice(0, 2000)}…` : text,
              ...(name ? { "db.query.summary": name } : {}),
            },
          },
          tracing.contextOf(parent),
        )
      : undefined;
  return (error) => {
    observability.metrics.statementDuration.observe({ operation }, (performance.now() - started) / 1000);
    if (!span) return;
    if (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as { code?: string }).code ?? "error" });
    }
    span.end();
  };
}

const OPERATIONS = new Set(["select", "insert", "update", "delete", "with", "begin", "commit", "rollback"]);

/** The statement's first keyword, from a fixed set so the label stays small. */
function operationOf(text: string): string {
  const word = /^\s*\(?\s*([a-z]+)/i.exec(text)?.[1]?.toLowerCase() ?? "";
  return OPERATIONS.has(word) ? word.toUpperCase() : "OTHER";
}
