import { randomBytes } from "node:crypto";
import pg from "pg";

/** A database of one test file's own on the PostgreSQL server of the CI pass, dropped by `drop()`. */
export type OwnDatabase = {
  name: string;
  /** Connection string of this database, straight to PostgreSQL: for the test's own queries. */
  url: string;
  /**
   * The variables that point a Gatehouse process at this database the way the pass runs: straight to PostgreSQL,
   * or, when GATEHOUSE_TEST_PGBOUNCER_URL names a PgBouncer in transaction pooling (the pooler pass of `.ci/run`),
   * through it, with GATEHOUSE_DATABASE_DIRECT_URL for LISTEN and migrations unless `direct: false` (the process
   * then polls for change notices).
   */
  serverEnv(options?: { direct?: boolean }): Record<string, string>;
  /** Runs one query on this database (a connection per call: the tests read little). */
  query<Row extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<Row[]>;
  drop(): Promise<void>;
};

/**
 * Creates a fresh database next to the one in `serverUrl` (the pass's DATABASE_URL), so the product starts on an
 * empty database and migrates it the way a new deployment does. A server that cannot be reached fails the test.
 */
export async function createOwnDatabase(
  serverUrl: string,
  prefix = "gatehouse_product",
): Promise<OwnDatabase> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const adminUrl = new URL(serverUrl);
  adminUrl.pathname = "/postgres";
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl.toString() });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const own = new URL(serverUrl);
  own.pathname = `/${name}`;
  const url = own.toString();
  const pooler = process.env.GATEHOUSE_TEST_PGBOUNCER_URL;
  return {
    name,
    url,
    serverEnv: ({ direct = true } = {}) => {
      if (!pooler) return { DATABASE_URL: url };
      const pooled = new URL(pooler);
      pooled.pathname = `/${name}`;
      return {
        DATABASE_URL: pooled.toString(),
        GATEHOUSE_DATABASE_POOLING: "transaction",
        ...(direct ? { GATEHOUSE_DATABASE_DIRECT_URL: url } : {}),
      };
    },
    async query<Row extends Record<string, unknown>>(text: string, values: unknown[] = []) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<Row>(text, values)).rows;
      } finally {
        await client.end();
      }
    },
    // `with (force)` ends the connections of a product process that did not stop cleanly.
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}
