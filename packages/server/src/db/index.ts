import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { lockDataDir } from "./data-dir-lock.ts";
import * as schema from "./schema.ts";

/** One database type for both drivers: services never know whether they run on PGlite or PostgreSQL. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export type DatabaseHandle = {
  db: Database;
  kind: "pglite" | "postgres";
  close: () => Promise<void>;
};

import { SERVER_PACKAGE_ROOT } from "../package-root.ts";

const migrationsFolder = join(SERVER_PACKAGE_ROOT, "src/db/migrations");

/** Any fixed number works; it only has to be the same in every process that migrates this database. */
const MIGRATION_LOCK_ID = 7_402_113;

/**
 * Opens the database: PostgreSQL when a connection string is given, otherwise embedded PGlite
 * (in `dataDir`, or in memory when `dataDir` is undefined), then applies pending migrations.
 */
export async function openDatabase(options: {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
}): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // An idle connection can be cut by the server (restart, failover, admin termination). Without a listener that
    // 'error' event would crash the process; the pool simply opens a new connection on the next query.
    pool.on("error", (error) => {
      console.warn(`[database] an idle connection was closed: ${error.message}`);
    });
    const db = drizzlePg(pool, { schema }) as unknown as Database;
    // Several instances may start at once; the advisory lock makes them migrate one after another.
    const client = await pool.connect();
    try {
      await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
      await migratePg(drizzlePg(client, { schema }), { migrationsFolder });
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => {});
      client.release();
    }
    return { db, kind: "postgres", close: () => pool.end() };
  }
  // PGlite creates its own directory but not missing parents, and a fresh GATEHOUSE_DATA_DIR may not exist yet.
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const unlock = options.dataDir ? lockDataDir(options.dataDir) : () => {};
  try {
    const client = options.dataDir ? new PGlite(options.dataDir) : new PGlite();
    const db = drizzlePglite(client, { schema }) as unknown as Database;
    await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder });
    const close = async () => {
      try {
        await client.close();
      } finally {
        unlock();
      }
    };
    return { db, kind: "pglite", close };
  } catch (error) {
    unlock();
    throw error;
  }
}

/** A cheap round trip, for `/health`-style checks. */
export async function pingDatabase(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}

export { schema };
