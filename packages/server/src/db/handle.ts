import { join } from "node:path";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type pg from "pg";
import { SERVER_PACKAGE_ROOT } from "../package-root.ts";
import type * as schema from "./schema.ts";

// What both drivers' openers (open-pglite.ts, open-postgres.ts) give `openDatabase` in index.ts.

/** One database type for both drivers: services never know whether they run on PGlite or PostgreSQL. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export type DatabaseHandle = {
  db: Database;
  kind: "pglite" | "postgres";
  /** PostgreSQL's connection pool, for what watches it (pool use and waits); absent on PGlite. */
  pgPool?: pg.Pool;
  /** How the PostgreSQL connections are pooled (db/pooling.ts); absent on PGlite. */
  pooling?: "session" | "transaction";
  /**
   * Subscribes to a NOTIFY channel (`pg_notify` in any transaction, delivered after it commits). `onGap` runs when
   * notifications may have been missed (the listening connection dropped and came back), so callers can drop what
   * they cached. Returns the unsubscribe function.
   */
  /**
   * Whether `listen` hears a plain `pg_notify` as it commits. Behind a transaction pooler with no direct URL it polls
   * `change_notices` instead (notices.ts), so only notices sent with `sendNotice` reach it.
   */
  hearsNotify: boolean;
  listen: (
    channel: string,
    onNotify: (payload: string) => void,
    onGap: () => void,
  ) => Promise<() => Promise<void>>;
  close: () => Promise<void>;
};

export const migrationsFolder = join(SERVER_PACKAGE_ROOT, "src/db/migrations");
