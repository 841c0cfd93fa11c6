import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
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
  /**
   * Subscribes to a NOTIFY channel (`pg_notify` in any transaction, delivered after it commits). `onGap` runs when
   * notifications may have been missed (the listening connection dropped and came back), so callers can drop what
   * they cached. Returns the unsubscribe function.
   */
  listen: (
    channel: string,
    onNotify: (payload: string) => void,
    onGap: () => void,
  ) => Promise<() => Promise<void>>;
  close: () => Promise<void>;
};

import { SERVER_PACKAGE_ROOT } from "../package-root.ts";

export const migrationsFolder = join(SERVER_PACKAGE_ROOT, "src/db/migrations");

/** Any fixed number works; it only has to be the same in every process that migrates this database. */
const MIGRATION_LOCK_ID = 7_402_113;

/**
 * Opens the database: PostgreSQL when a connection string is given, otherwise embedded PGlite
 * (in `dataDir`, or in memory when `dataDir` is undefined), then applies pending migrations.
 */
export async function openDatabase(options: {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  /**
   * In-memory PGlite only: start from this dump of a data directory (`dumpDataDir`) instead of running initdb.
   * Tests use a dump of a freshly migrated database: initdb is ~3 s of a ~4 s open, the load under 1 s.
   */
  pgliteDataDirDump?: Blob | undefined;
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
    const listeners = new Set<ListenConnection>();
    return {
      db,
      kind: "postgres",
      listen: async (channel, onNotify, onGap) => {
        const connection = await listenOnPostgres(options.databaseUrl!, channel, onNotify, onGap);
        listeners.add(connection);
        return async () => {
          listeners.delete(connection);
          await connection.stop();
        };
      },
      close: async () => {
        await Promise.all([...listeners].map((connection) => connection.stop()));
        await pool.end();
      },
    };
  }
  // PGlite creates its own directory but not missing parents, and a fresh GATEHOUSE_DATA_DIR may not exist yet.
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const unlock = options.dataDir ? lockDataDir(options.dataDir) : () => {};
  try {
    // The trigram search indexes of migration 0010 need both extensions (about 21 kB of bundles, loaded at start).
    const client = new PGlite({
      dataDir: options.dataDir,
      loadDataDir: options.dataDir === undefined ? options.pgliteDataDirDump : undefined,
      extensions: { pg_trgm, btree_gin },
      // PostgreSQL's default 128 MB of shared buffers is allocated and zeroed inside PGlite's WebAssembly memory at
      // every start: ~110 MiB of the process's memory and ~0.1 s. 16 MB holds an embedded database's working set;
      // pages beyond it are read back from the OS file cache.
      startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"],
    });
    const db = drizzlePglite(client, { schema }) as unknown as Database;
    await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder });
    const close = async () => {
      try {
        await client.close();
      } finally {
        unlock();
      }
    };
    // One engine in this process: its notifications reach its own listeners, after the sending transaction commits.
    const listen = async (channel: string, onNotify: (payload: string) => void) => {
      const unlisten = await client.listen(channel, onNotify);
      return () => unlisten();
    };
    return { db, kind: "pglite", listen, close };
  } catch (error) {
    unlock();
    throw error;
  }
}

type ListenConnection = { stop: () => Promise<void> };

/**
 * A dedicated connection for LISTEN (a pooled one would be handed to queries and lose the subscription). When it
 * drops it reconnects after 1 s, then 2, 4… up to 30 s, and reports the gap: notifications sent meanwhile are lost.
 */
async function listenOnPostgres(
  connectionString: string,
  channel: string,
  onNotify: (payload: string) => void,
  onGap: () => void,
): Promise<ListenConnection> {
  let stopped = false;
  let client: pg.Client | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let retryDelayMs = 1000;

  const connect = async () => {
    const next = new pg.Client({ connectionString });
    next.on("notification", (message) => {
      if (message.channel === channel) onNotify(message.payload ?? "");
    });
    next.on("error", () => {
      // 'end' follows and schedules the reconnect; without a listener the error would crash the process.
    });
    next.on("end", () => {
      if (stopped || client !== next) return;
      client = null;
      onGap();
      scheduleReconnect();
    });
    try {
      await next.connect();
      await next.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      await next.end().catch(() => {});
      throw error;
    }
    client = next;
    retryDelayMs = 1000;
  };
  const scheduleReconnect = () => {
    retryTimer = setTimeout(() => {
      retryTimer = null;
      if (stopped) return;
      connect().then(
        // Whatever was sent while we were away is lost: say so once more, now that we hear again.
        () => onGap(),
        () => {
          retryDelayMs = Math.min(retryDelayMs * 2, 30_000);
          scheduleReconnect();
        },
      );
    }, retryDelayMs);
    retryTimer.unref();
  };

  await connect();
  return {
    stop: async () => {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}

/** A cheap round trip, for `/health`-style checks. */
export async function pingDatabase(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}

export { schema };
