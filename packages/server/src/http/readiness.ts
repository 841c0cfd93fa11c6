import { sql } from "drizzle-orm";
import type { Hono, MiddlewareHandler } from "hono";
import { settlesWithin } from "../background/settles-within.ts";
import { readSchemaState } from "../db/migrate.ts";
import type { AppDeps } from "../deps.ts";
import { jsonResponse } from "./responses.ts";

/**
 * Liveness and readiness, for orchestrators and load balancers (README, Deploy).
 *
 * `/health` is liveness: the process answers. It reads nothing, so a slow database never gets a live process
 * restarted. `/ready` is readiness: whether this instance should get traffic now. It answers 503 once the instance
 * is draining (main.ts, on SIGTERM), when the database does not answer a ping in time, or when a background worker
 * is not running. The body names each check and its state, never an error's text (which may carry host names).
 */

/** A probe waits this long for the database; a ping slower than that means requests would be as slow. */
const DATABASE_PING_TIMEOUT_MS = 2_000;

type CheckState = "ok" | "draining" | "unreachable" | "timed out" | "stopped" | "pending";

export type ReadinessReport = {
  ready: boolean;
  checks: {
    draining: boolean;
    database: CheckState;
    migrations: CheckState;
    email_worker: CheckState;
    webhook_worker: CheckState;
  };
};

export async function checkReadiness(deps: AppDeps): Promise<ReadinessReport> {
  const draining = deps.lifecycle?.draining ?? false;
  const worker = (running: boolean | undefined): CheckState => (running ? "ok" : "stopped");
  const database = await pingDatabase(deps);
  const checks: ReadinessReport["checks"] = {
    draining,
    database,
    migrations: database === "ok" ? await migrationsApplied(deps) : database,
    email_worker: worker(deps.emailWorker?.isRunning?.()),
    webhook_worker: worker(deps.webhookWorker?.isRunning?.()),
  };
  const ready =
    !draining &&
    checks.database === "ok" &&
    checks.migrations === "ok" &&
    checks.email_worker === "ok" &&
    checks.webhook_worker === "ok";
  return { ready, checks };
}

async function pingDatabase(deps: AppDeps): Promise<CheckState> {
  let failed = false;
  const ping = deps.db.execute(sql`select 1`).then(
    () => {},
    () => {
      failed = true;
    },
  );
  if (!(await settlesWithin(ping, DATABASE_PING_TIMEOUT_MS))) return "timed out";
  return failed ? "unreachable" : "ok";
}

/**
 * Whether every migration this build needs is applied: an instance started with GATEHOUSE_MIGRATE_ON_START=false
 * refuses to start otherwise, but a database restored from an older backup under a running instance is caught
 * here. Migrations a newer release applied do not make an instance unready: during a rolling upgrade the previous
 * release keeps serving on the expanded schema (README, Deploy). Once applied they stay applied, so a database
 * that passed is not asked again for a minute.
 */
const migrationsCheckedAt = new WeakMap<AppDeps["db"], number>();
async function migrationsApplied(deps: AppDeps): Promise<CheckState> {
  const checkedAt = migrationsCheckedAt.get(deps.db);
  if (checkedAt !== undefined && Date.now() - checkedAt < 60_000) return "ok";
  const state = await readSchemaState(deps.db).catch(() => null);
  if (!state) return "unreachable";
  if (state.pending.length > 0) return "pending";
  migrationsCheckedAt.set(deps.db, Date.now());
  return "ok";
}

const PROBE_HEADERS = { "access-control-allow-origin": "*", "cache-control": "no-store" };

export function mountProbes(app: Hono, deps: AppDeps): void {
  app.get("/health", () => jsonResponse({ status: "ok" }, 200, PROBE_HEADERS));
  app.get("/ready", async () => {
    // Draining is known without a query: the answer comes at once, however busy the database is.
    if (deps.lifecycle?.draining) {
      return jsonResponse({ status: "unavailable", checks: { draining: true } }, 503, PROBE_HEADERS);
    }
    const report = await checkReadiness(deps);
    return jsonResponse(
      { status: report.ready ? "ready" : "unavailable", checks: report.checks },
      report.ready ? 200 : 503,
      PROBE_HEADERS,
    );
  });
}

/**
 * While draining, every answer says `connection: close`, so Node closes the connection once the answer is sent and
 * clients (and a load balancer's pool) open their next connection to an instance that is staying.
 */
export function closeConnectionsWhileDraining(deps: AppDeps): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (!deps.lifecycle?.draining) return;
    try {
      c.res.headers.set("connection", "close");
    } catch {
      // Immutable headers (a fetched response passed through): the listener's close still ends the connection.
    }
  };
}
