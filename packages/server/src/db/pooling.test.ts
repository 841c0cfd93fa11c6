import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDatabaseSettings } from "../env.ts";
import { StartupError } from "../startup-error.ts";
import { type PgBouncer, startPgBouncer } from "../testing/pgbouncer.ts";
import type { DatabaseHandle } from "./handle.ts";
import { migrateDatabase, readSchemaState } from "./migrate.ts";
import { sendNotice } from "./notices.ts";
import { openPostgres } from "./open-postgres.ts";
import { parsePoolingSetting, sendStatementsUnnamed, sharesServerSessions } from "./pooling.ts";

/**
 * Gatehouse behind PgBouncer in transaction pooling, the mode managed PostgreSQL offers for many app instances.
 * On the PostgreSQL pass a real PgBouncer is started in front of the pass's server; the PGlite pass checks how the
 * settings are read.
 */
const postgresUrl = process.env.DATABASE_URL;

describe("GATEHOUSE_DATABASE_POOLING and GATEHOUSE_DATABASE_DIRECT_URL", () => {
  it("reads auto by default, and refuses a mode it does not know", () => {
    expect(parsePoolingSetting(undefined)).toBe("auto");
    expect(parsePoolingSetting("transaction")).toBe("transaction");
    expect(() => parsePoolingSetting("statement")).toThrow(/GATEHOUSE_DATABASE_POOLING "statement"/);
  });

  it("needs DATABASE_URL for the pooler settings, and a postgres:// direct URL", () => {
    expect(() => readDatabaseSettings({ GATEHOUSE_DATABASE_POOLING: "transaction" })).toThrow(
      /need DATABASE_URL/,
    );
    expect(() =>
      readDatabaseSettings({ DATABASE_URL: "postgres://a/b", GATEHOUSE_DATABASE_DIRECT_URL: "mysql://a/b" }),
    ).toThrow(/GATEHOUSE_DATABASE_DIRECT_URL/);
    expect(() => readDatabaseSettings({ GATEHOUSE_MIGRATE_ON_START: "yes" })).toThrow(/true or false/);
    expect(
      readDatabaseSettings({ DATABASE_URL: "postgres://a/b", GATEHOUSE_MIGRATE_ON_START: "false" }),
    ).toEqual({ pooling: "auto", directUrl: undefined, migrateOnStart: false });
  });
});

if (postgresUrl) {
  describe("behind PgBouncer in transaction pooling", () => {
    let bouncer: PgBouncer;
    let directUrl: string;
    let pooledUrl: string;
    let databaseName: string;
    const handles: DatabaseHandle[] = [];

    const admin = async (statement: string) => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        return await client.query(statement);
      } finally {
        await client.end();
      }
    };
    const open = async (options: Partial<Parameters<typeof openPostgres>[0]> = {}) => {
      const handle = await openPostgres({ databaseUrl: pooledUrl, ...options });
      handles.push(handle);
      return handle;
    };

    beforeAll(async () => {
      bouncer = await startPgBouncer("transaction");
      databaseName = `gatehouse_pooling_${randomBytes(6).toString("hex")}`;
      await admin(`create database ${databaseName}`);
      const url = new URL(postgresUrl);
      url.pathname = `/${databaseName}`;
      directUrl = url.toString();
      pooledUrl = bouncer.urlFor(directUrl);
    });

    afterAll(async () => {
      await Promise.all(handles.map((handle) => handle.close().catch(() => {})));
      await bouncer?.stop();
      await admin(`drop database if exists ${databaseName} with (force)`);
    });

    it("tells a transaction pooler from a direct connection", async () => {
      expect(await sharesServerSessions(pooledUrl)).toBe(true);
      expect(await sharesServerSessions(directUrl)).toBe(false);
    });

    it("runs in transaction mode, unasked, when given a direct URL apart from DATABASE_URL", async () => {
      const withDirect = await open({ directUrl });
      expect(withDirect.pooling).toBe("transaction");
      const direct = await open({ databaseUrl: directUrl });
      expect(direct.pooling).toBe("session");
    });

    it("named statements break behind it, and go through once sent unnamed", async () => {
      const run = async (unnamed: boolean) => {
        const pool = new pg.Pool({
          connectionString: pooledUrl,
          max: 2,
          onConnect: unnamed ? (client) => sendStatementsUnnamed(client) : undefined,
        });
        try {
          // Two clients at once, then each in turn: the pooler lends the second the session the first prepared on.
          const clients = await Promise.all([pool.connect(), pool.connect()]);
          const errors: string[] = [];
          for (let round = 0; round < 3; round++) {
            for (const client of clients) {
              await client
                .query({ name: "pooling_probe", text: "select $1::int as n", values: [round] })
                .catch((error: Error) => errors.push(error.message));
            }
          }
          for (const client of clients) client.release();
          return errors;
        } finally {
          await pool.end();
        }
      };
      expect((await run(false)).join("\n")).toMatch(/prepared statement "pooling_probe"/);
      expect(await run(true)).toEqual([]);
    });

    it("migrates once when instances start together, under a transaction-scoped lock", async () => {
      // The mode is given: this is about the lock (detection has its own test, and asks one probe at a time).
      const [a, b] = await Promise.all([open({ pooling: "transaction" }), open({ pooling: "transaction" })]);
      expect(a.pooling).toBe("transaction");
      expect(b.pooling).toBe("transaction");
      const state = await readSchemaState(a.db);
      expect(state).toEqual({ pending: [], unknown: 0 });
      const rows = (await a.db.execute(
        sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
      )) as unknown as {
        rows: { n: number }[];
      };
      expect(await migrateDatabase(a.db)).toEqual([]);
      expect(rows.rows[0]!.n).toBeGreaterThan(10);
      // No advisory lock stays held on any server session afterwards.
      const locks = await admin(
        `select count(*)::int as n from pg_locks
          where locktype = 'advisory' and database = (select oid from pg_database where datname = '${databaseName}')`,
      );
      expect(locks.rows[0].n).toBe(0);
    });

    it("refuses GATEHOUSE_DATABASE_POOLING=session on a connection that shares sessions, naming the setting", async () => {
      await expect(open({ pooling: "session" })).rejects.toThrow(StartupError);
      await expect(open({ pooling: "session" })).rejects.toThrow(/GATEHOUSE_DATABASE_POOLING=transaction/);
    });

    it("answers many statements at once from every hot path's prepared statements", async () => {
      const handle = await open({ pooling: "transaction" });
      const results = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          handle.db.transaction(async (tx) => {
            await tx.execute(sql`select pg_advisory_xact_lock(${i % 3})`);
            return tx.execute(sql`select ${i}::int as n`);
          }),
        ),
      );
      expect(results.filter((result) => result.status === "rejected")).toEqual([]);
    });

    it("hears change notices by polling when it has no direct URL, and by LISTEN when it has one", async () => {
      const sender = await open();
      const polling = await open();
      const listening = await open({ directUrl });
      const heardByPolling: string[] = [];
      const heardByListening: string[] = [];
      const stopPolling = await polling.listen(
        "gatehouse_test_channel",
        (p) => heardByPolling.push(p),
        () => {},
      );
      const stopListening = await listening.listen(
        "gatehouse_test_channel",
        (p) => heardByListening.push(p),
        () => {},
      );
      try {
        await sender.db.transaction(async (tx) => {
          await sendNotice(tx as never, "gatehouse_test_channel", "project-a");
          await sendNotice(tx as never, "other_channel", "project-b");
        });
        await expect.poll(() => heardByListening).toEqual(["project-a"]);
        await expect.poll(() => heardByPolling).toEqual(["project-a"]);
      } finally {
        await stopPolling();
        await stopListening();
      }
    });

    it("refuses to start on pending migrations when told not to migrate, and on a schema newer than it knows", async () => {
      const fresh = `gatehouse_pooling_fresh_${randomBytes(4).toString("hex")}`;
      await admin(`create database ${fresh}`);
      try {
        const url = new URL(directUrl);
        url.pathname = `/${fresh}`;
        const freshPooled = bouncer.urlFor(url.toString());
        await expect(open({ databaseUrl: freshPooled, migrations: "check" })).rejects.toThrow(
          /gatehouse-server migrate/,
        );
        const migrated = await open({ databaseUrl: freshPooled, directUrl: url.toString() });
        await migrated.db.execute(
          sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('from-a-newer-release', 99999999999999)`,
        );
        await expect(open({ databaseUrl: freshPooled })).rejects.toThrow(/newer release/);
        await expect(open({ databaseUrl: freshPooled, migrations: "check" })).rejects.toThrow(StartupError);
      } finally {
        await Promise.all(handles.splice(0).map((handle) => handle.close().catch(() => {})));
        await admin(`drop database if exists ${fresh} with (force)`);
      }
    });
  });
}
