import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase } from "../testing/test-database.ts";
import { maintainTables, startEmbeddedMaintenance } from "./embedded-maintenance.ts";
import type { DatabaseHandle } from "./index.ts";

let handle: DatabaseHandle;

beforeAll(async () => {
  handle = await openTestDatabase();
});
afterAll(() => handle.close());

async function statsOf(table: string) {
  await handle.db.execute(sql`select pg_stat_force_next_flush()`);
  const result = await handle.db.execute(sql`
    select n_dead_tup as dead, coalesce(last_vacuum, last_autovacuum) as vacuumed_at,
      coalesce(last_analyze, last_autoanalyze) as analyzed_at
    from pg_stat_user_tables where relname = ${table}`);
  const [row] = (
    result as unknown as { rows: { dead: unknown; vacuumed_at: unknown; analyzed_at: unknown }[] }
  ).rows;
  return {
    dead: Number(row!.dead),
    vacuumed: row!.vacuumed_at !== null,
    analyzed: row!.analyzed_at !== null,
  };
}

/** A table of `rows` rows that PostgreSQL's own autovacuum leaves alone, so only the code under test maintains it. */
async function probeTable(name: string, rows: number) {
  await handle.db.execute(
    sql`create table ${sql.identifier(name)} (id int primary key, n int not null) with (autovacuum_enabled = false)`,
  );
  await handle.db.execute(
    sql`insert into ${sql.identifier(name)} select g, 0 from generate_series(1, ${rows}::int) g`,
  );
}

describe("embedded database maintenance", () => {
  it("vacuums a table full of dead rows, analyzes a changed one, and leaves quiet ones alone", async () => {
    await probeTable("churned_probe", 1000);
    await probeTable("grown_probe", 0);
    await probeTable("quiet_probe", 1000);
    // The first pass takes what the inserts above left: all three were filled and never analyzed.
    await maintainTables(handle.db);

    // Two updates of every row: 2,000 dead rows where 50 + 20% of 1,000 is the threshold.
    for (let round = 0; round < 2; round++) await handle.db.execute(sql`update churned_probe set n = n + 1`);
    // Inserts leave no dead rows, but change what the planner should know.
    await handle.db.execute(sql`insert into grown_probe select g, 0 from generate_series(1, 500) g`);
    // 20 changes of 1,000 rows: under both thresholds.
    await handle.db.execute(sql`update quiet_probe set n = 1 where id <= 20`);
    expect((await statsOf("churned_probe")).dead).toBe(2000);

    const pass = await maintainTables(handle.db);
    expect(pass.vacuumed).toContain("churned_probe");
    expect(pass.analyzed).toContain("grown_probe");
    expect([...pass.vacuumed, ...pass.analyzed]).not.toContain("quiet_probe");
    expect(await statsOf("churned_probe")).toEqual({ dead: 0, vacuumed: true, analyzed: true });

    // Nothing changed since: nothing to do.
    const again = await maintainTables(handle.db);
    expect([...again.vacuumed, ...again.analyzed].filter((name) => name.endsWith("_probe"))).toEqual([]);
  });

  it("runs on its own every interval until stopped", async () => {
    await probeTable("timed_probe", 200);
    await handle.db.execute(sql`update timed_probe set n = n + 1`);
    const maintenance = startEmbeddedMaintenance(handle.db, { intervalMs: 20 });
    try {
      await expect.poll(async () => (await statsOf("timed_probe")).vacuumed, { timeout: 10_000 }).toBe(true);
    } finally {
      await maintenance.stop();
    }
    expect((await statsOf("timed_probe")).dead).toBe(0);
  });
});
