/**
 * Autovacuum's job for the embedded database. PGlite runs PostgreSQL in this process without its background workers,
 * so nothing vacuums or analyzes on its own: every update leaves its old row version behind for good (a session
 * touched by each refresh, a user's `last_active_at`, the rate-limit counters), and the planner never gets
 * statistics. Without them a prepared statement can pick a path ten times slower than with them (the refresh's
 * session read in bench/compare.mjs: 340 µs instead of 39 µs).
 *
 * PGlite does keep the table statistics, so this applies autovacuum's default thresholds to them once a minute:
 * a table with more dead rows than 50 + 20% of its live ones is vacuumed (and analyzed), one changed by more than
 * 50 + 10% of its rows since its last analyze is analyzed. One table at a time: the embedded database has a single
 * connection, so each statement holds requests up for its duration (30-70 ms for a 200,000-row table, measured),
 * and requests that queue meanwhile run between two tables.
 *
 * PostgreSQL proper has autovacuum for this and is left to it.
 */
import { sql } from "drizzle-orm";
import type { Database } from "./index.ts";

/** autovacuum_naptime's default. */
const DEFAULT_INTERVAL_MS = 60_000;
/** autovacuum_vacuum_threshold and autovacuum_vacuum_scale_factor's defaults. */
const VACUUM_THRESHOLD = 50;
const VACUUM_SCALE_FACTOR = 0.2;
/** autovacuum_analyze_threshold and autovacuum_analyze_scale_factor's defaults. */
const ANALYZE_THRESHOLD = 50;
const ANALYZE_SCALE_FACTOR = 0.1;

type TableActivity = { name: string; live: number; dead: number; modifiedSinceAnalyze: number };

export type MaintenancePass = { vacuumed: string[]; analyzed: string[] };

async function tableActivity(db: Database): Promise<TableActivity[]> {
  // Counters a backend has not reported yet (it does so at most once a second) would be missed otherwise.
  await db.execute(sql`select pg_stat_force_next_flush()`);
  const result = await db.execute(sql`
    select relname as name, n_live_tup as live, n_dead_tup as dead, n_mod_since_analyze as modified
    from pg_stat_user_tables where schemaname = 'public' order by relname`);
  return (
    result as unknown as { rows: { name: string; live: unknown; dead: unknown; modified: unknown }[] }
  ).rows.map((row) => ({
    name: row.name,
    live: Number(row.live),
    dead: Number(row.dead),
    modifiedSinceAnalyze: Number(row.modified),
  }));
}

/** One pass over the tables: vacuums and analyzes those past autovacuum's thresholds, one after another. */
export async function maintainTables(db: Database): Promise<MaintenancePass> {
  const pass: MaintenancePass = { vacuumed: [], analyzed: [] };
  for (const table of await tableActivity(db)) {
    const needsVacuum = table.dead > VACUUM_THRESHOLD + VACUUM_SCALE_FACTOR * table.live;
    const needsAnalyze = table.modifiedSinceAnalyze > ANALYZE_THRESHOLD + ANALYZE_SCALE_FACTOR * table.live;
    if (!needsVacuum && !needsAnalyze) continue;
    // Requests that queued while the last statement ran go first.
    await new Promise((resolve) => setImmediate(resolve));
    const name = sql.identifier(table.name);
    if (needsVacuum) {
      await db.execute(sql`vacuum (analyze) ${name}`);
      pass.vacuumed.push(table.name);
    } else {
      await db.execute(sql`analyze ${name}`);
      pass.analyzed.push(table.name);
    }
  }
  return pass;
}

export type EmbeddedMaintenance = {
  /** Waits for a pass under way, and runs no more. */
  stop: () => Promise<void>;
};

/** Runs `maintainTables` every `intervalMs` (a minute) until stopped; a failed pass is logged and the next one runs. */
export function startEmbeddedMaintenance(
  db: Database,
  options: { intervalMs?: number } = {},
): EmbeddedMaintenance {
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  const schedule = () => {
    timer = setTimeout(() => {
      running = maintainTables(db).then(
        () => {},
        (error: Error) => console.error("Embedded database maintenance failed:", error.message),
      );
      void running.then(() => {
        if (!stopped) schedule();
      });
    }, intervalMs);
    // Maintenance never keeps the process alive.
    timer.unref();
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
