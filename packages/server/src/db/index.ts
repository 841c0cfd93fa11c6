import { sql } from "drizzle-orm";
import type { Database, DatabaseHandle } from "./handle.ts";
import type { PostgresOptions } from "./open-postgres.ts";
import * as schema from "./schema.ts";

export type { Database, DatabaseHandle } from "./handle.ts";

/**
 * Opens the database: PostgreSQL when a connection string is given, otherwise embedded PGlite
 * (in `dataDir`, or in memory when `dataDir` is undefined), then applies pending migrations. Each driver is
 * imported only when chosen: `pg` is ~8 MiB of an embedded instance's memory at ready, PGlite's JS ~5 MiB of a
 * PostgreSQL one's (the build splits them into their own files for this).
 */
export async function openDatabase(options: {
  databaseUrl?: string | undefined;
  /** PostgreSQL only: see `PostgresOptions` (open-postgres.ts). */
  postgres?: Omit<PostgresOptions, "databaseUrl">;
  dataDir?: string | undefined;
  /**
   * In-memory PGlite only: start from this dump of a data directory (`dumpDataDir`) instead of running initdb.
   * Tests use a dump of a freshly migrated database: initdb is ~3 s of a ~4 s open, the load under 1 s.
   */
  pgliteDataDirDump?: Blob | undefined;
}): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const { openPostgres } = await import("./open-postgres.ts");
    return openPostgres({ ...options.postgres, databaseUrl: options.databaseUrl });
  }
  const { openPglite } = await import("./open-pglite.ts");
  return openPglite(options);
}

/** A cheap round trip, for `/health`-style checks. */
export async function pingDatabase(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}

export { schema };
