import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { type Database, type DatabaseHandle, migrationsFolder } from "./handle.ts";
import * as schema from "./schema.ts";

/** Any fixed number works; it only has to be the same in every process that migrates this database. */
const MIGRATION_LOCK_ID = 7_402_113;

/**
 * Every statement Gatehouse sends is short and indexed, answering one request. A parallel plan must first start its
 * workers, which took 50–70 ms on a loaded 2-core machine: a user search for a common name ("garcia", 1 user in 20)
 * in a 20,000-user project took 80 ms with two workers and 6.6 ms without (bench/users-search.mjs), and the owners'
 * metrics of a 200,000-user project 718 ms against 495 ms (bench/metrics.mjs), its sections' queries running side by
 * side. Workers are also a server-wide pool (max_parallel_workers, 8 by default) that instances would compete for.
 * So Gatehouse's own connections never plan parallel; other users of the server keep its settings.
 */
const CONNECTION_SETTINGS = "set max_parallel_workers_per_gather = 0";

/**
 * PostgreSQL through a pool of 10 connections, after applying pending migrations. Imported by `openDatabase` only
 * when a connection string is given, so an embedded instance never loads `pg`.
 */
export async function openPostgres(databaseUrl: string): Promise<DatabaseHandle> {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    // Awaited before the pool hands the new connection out; if it fails, the caller gets that error.
    onConnect: (client) => client.query(CONNECTION_SETTINGS),
  });
  // An idle connection can be cut by the server (restart, failover, admin termination). Without a listener that
  // 'error' event would crash the process; the pool simply opens a new connection on the next query.
  pool.on("error", (error) => {
    console.warn(`[database] an idle connection was closed: ${error.message}`);
  });
  const db = drizzle(pool, { schema }) as unknown as Database;
  // Several instances may start at once; the advisory lock makes them migrate one after another.
  const client = await pool.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    await migrate(drizzle(client, { schema }), { migrationsFolder });
  } finally {
    await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => {});
    client.release();
  }
  const listeners = new Set<ListenConnection>();
  return {
    db,
    kind: "postgres",
    listen: async (channel, onNotify, onGap) => {
      const connection = await listenOnPostgres(databaseUrl, channel, onNotify, onGap);
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
