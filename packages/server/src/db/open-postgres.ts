import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { StartupError } from "../startup-error.ts";
import type { Database, DatabaseHandle } from "./handle.ts";
import { migrateDatabase, readSchemaState, SchemaNewerError } from "./migrate.ts";
import { pollNotices } from "./notices.ts";
import {
  type PoolingMode,
  type PoolingSetting,
  sendStatementsUnnamed,
  sharesServerSessions,
} from "./pooling.ts";
import * as schema from "./schema.ts";

/**
 * Every statement Gatehouse sends is short and indexed, answering one request. A parallel plan must first start its
 * workers, which took 50–70 ms on a loaded 2-core machine: a user search for a common name ("garcia", 1 user in 20)
 * in a 20,000-user project took 80 ms with two workers and 6.6 ms without (bench/users-search.mjs), and the owners'
 * metrics of a 200,000-user project 718 ms against 495 ms (bench/metrics.mjs), its sections' queries running side by
 * side. Workers are also a server-wide pool (max_parallel_workers, 8 by default) that instances would compete for.
 * So Gatehouse's own connections never plan parallel; other users of the server keep its settings. Behind a
 * transaction pooler a session setting would land on whichever server session ran it, so there the operator sets
 * it for Gatehouse's role instead (README, Deploy).
 */
const CONNECTION_SETTINGS = "set max_parallel_workers_per_gather = 0";

/** How often an instance that cannot LISTEN polls for change notices: the bound on how stale its caches get. */
export const NOTICE_POLL_MS = 1000;

export type PostgresOptions = {
  databaseUrl: string;
  /**
   * A connection straight to PostgreSQL, past any pooler: for LISTEN and migrations. Unset: the database URL,
   * except that LISTEN is then replaced by polling in transaction pooling.
   */
  directUrl?: string | undefined;
  pooling?: PoolingSetting;
  /**
   * With `pooling: "session"`: take it as said, without the probes that refuse a connection sharing server sessions
   * (up to five round trips on every open). For test databases, which DATABASE_URL puts on PostgreSQL itself and
   * which are opened once per test file; a test of the detection leaves it off (db/pooling.test.ts).
   */
  trustSessionPooling?: boolean;
  /** `check`: apply nothing, refuse to start if migrations are pending (`gatehouse-server migrate` applies them). */
  migrations?: "apply" | "check";
};

/**
 * PostgreSQL through a pool of 10 connections, after applying pending migrations (or checking that none are
 * pending). Imported by `openDatabase` only when a connection string is given, so an embedded instance never loads
 * `pg`.
 */
export async function openPostgres(options: PostgresOptions): Promise<DatabaseHandle> {
  const { databaseUrl, directUrl } = options;
  const pooling =
    options.pooling === "session" && options.trustSessionPooling
      ? "session"
      : await resolvePooling(databaseUrl, directUrl, options.pooling ?? "auto");
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    // Awaited before the pool hands the new connection out; if it fails, the caller gets that error.
    onConnect:
      pooling === "transaction"
        ? (client) => sendStatementsUnnamed(client)
        : (client) => client.query(CONNECTION_SETTINGS),
  });
  // An idle connection can be cut by the server (restart, failover, admin termination). Without a listener that
  // 'error' event would crash the process; the pool simply opens a new connection on the next query.
  pool.on("error", (error) => {
    console.warn(`[database] an idle connection was closed: ${error.message}`);
  });
  const db = drizzle(pool, { schema }) as unknown as Database;
  try {
    await prepareSchema(directUrl ?? databaseUrl, db, directUrl !== undefined, options.migrations ?? "apply");
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  const listeners = new Set<ListenConnection>();
  // Behind a transaction pooler a LISTEN would hold whichever server session ran it: only a direct URL can listen.
  const listenUrl = pooling === "transaction" ? directUrl : (directUrl ?? databaseUrl);
  return {
    db,
    kind: "postgres",
    pgPool: pool,
    pooling,
    hearsNotify: Boolean(listenUrl),
    listen: async (channel, onNotify, onGap) => {
      const connection = listenUrl
        ? await listenOnPostgres(listenUrl, channel, onNotify, onGap)
        : await pollNotices(db, channel, NOTICE_POLL_MS, onNotify, onGap);
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

/** How many times `auto` asks before it believes there is no transaction pooler (see below). */
const POOLING_PROBES = 5;

/**
 * The pooling mode to run in. A setting of `session` on a connection that shares server sessions is refused at
 * start-up: every request would fail later on named statements. `auto` leans to transaction mode, since running it
 * behind a session pool or none only costs the prepared statements, while the other mistake fails requests: a
 * direct URL that differs from DATABASE_URL means a pooler is in between; otherwise the connection is asked, several
 * times, because with other clients busy a transaction pooler may hand the second probe another server session
 * (instances starting together showed that once).
 */
async function resolvePooling(
  databaseUrl: string,
  directUrl: string | undefined,
  setting: PoolingSetting,
): Promise<PoolingMode> {
  if (setting === "transaction") return "transaction";
  if (setting === "auto" && directUrl !== undefined && directUrl !== databaseUrl) return "transaction";
  let shared = false;
  for (let probe = 0; probe < POOLING_PROBES && !shared; probe++) {
    shared = await sharesServerSessions(databaseUrl);
  }
  if (shared && setting === "session") {
    throw new StartupError(
      "DATABASE_URL leads to a pooler that shares server sessions between clients (transaction pooling), but " +
        "GATEHOUSE_DATABASE_POOLING=session says it does not. Set GATEHOUSE_DATABASE_POOLING=transaction (or auto), " +
        "or point DATABASE_URL at a session-mode pool or at PostgreSQL itself.",
    );
  }
  return shared ? "transaction" : "session";
}

/** Migrates (over the direct URL when there is one) or checks that nothing is pending. */
async function prepareSchema(
  migrationUrl: string,
  pooled: Database,
  hasDirectUrl: boolean,
  migrations: "apply" | "check",
): Promise<void> {
  if (migrations === "check") {
    const state = await readSchemaState(pooled);
    if (state.unknown > 0) throw new StartupError(new SchemaNewerError(state.unknown).message);
    if (state.pending.length > 0) {
      throw new StartupError(
        `the database lacks ${state.pending.length} migration(s) of this release (${state.pending.join(", ")}). ` +
          "Run `gatehouse-server migrate` first (it uses GATEHOUSE_DATABASE_DIRECT_URL when set), or unset " +
          "GATEHOUSE_MIGRATE_ON_START=false to let instances migrate as they start.",
      );
    }
    return;
  }
  try {
    if (!hasDirectUrl) {
      await migrateDatabase(pooled);
      return;
    }
    await migrateOver(migrationUrl);
  } catch (error) {
    if (error instanceof SchemaNewerError) throw new StartupError(error.message);
    throw error;
  }
}

/** Applies pending migrations over one connection of their own to `connectionString`; returns what it applied. */
export async function migrateOver(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await migrateDatabase(drizzle(client, { schema }) as unknown as Database);
  } finally {
    await client.end().catch(() => {});
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
