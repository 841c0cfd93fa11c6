/**
 * Applying migrations, and knowing where a database's schema stands. The files are drizzle-kit's, and the record of
 * what was applied is Drizzle's own table (`drizzle.__drizzle_migrations`: one row per migration, `created_at` its
 * folder time), so databases migrated by earlier releases carry on. The runner is ours for one reason: Drizzle's
 * takes no lock, and ours holds a transaction-scoped advisory lock. A session lock would be wrong behind a
 * transaction pooler, where the unlock can run on another server connection than the lock and leave it held.
 */
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import type { Database } from "./handle.ts";
import { migrationsFolder } from "./handle.ts";

/** Any fixed number works; it only has to be the same in every process that migrates this database. */
const MIGRATION_LOCK_ID = 7_402_113;

const MIGRATIONS_TABLE = sql`drizzle.__drizzle_migrations`;

export type SchemaState = {
  /** Migrations this build ships that the database lacks, by file name. */
  pending: string[];
  /**
   * Migrations the database has that this build does not know: it was migrated by a newer release. Their count;
   * the records hold only a hash and a time, not a name.
   */
  unknown: number;
};

/** Thrown when the database's schema is newer than this build: running on it could corrupt what it wrote. */
export class SchemaNewerError extends Error {
  constructor(unknown: number) {
    super(
      `the database has ${unknown} migration(s) that this Gatehouse does not know: a newer release migrated it. ` +
        "Start the newer release instead (an instance never runs on a schema newer than its own).",
    );
  }
}

type Migration = ReturnType<typeof readMigrationFiles>[number] & { tag: string };

let cachedMigrations: Migration[] | undefined;

/** The build's migrations in order, each with its file name (the journal's tag). */
function knownMigrations(): Migration[] {
  if (cachedMigrations) return cachedMigrations;
  const files = readMigrationFiles({ migrationsFolder });
  // readMigrationFiles keeps the journal's order; the names come from the same journal.
  const journal = readJournalTags();
  cachedMigrations = files.map((file, index) => ({ ...file, tag: journal[index] ?? `#${index}` }));
  return cachedMigrations;
}

function readJournalTags(): string[] {
  const journal = JSON.parse(readFileSync(`${migrationsFolder}/meta/_journal.json`, "utf8")) as {
    entries: { tag: string }[];
  };
  return journal.entries.map((entry) => entry.tag);
}

/** Reads what was applied, inside whatever transaction `db` is; a database never migrated has applied nothing. */
async function appliedTimes(db: Database): Promise<number[]> {
  const exists = (await db.execute(
    sql`select to_regclass('drizzle.__drizzle_migrations')::text as table`,
  )) as unknown as { rows: { table: string | null }[] };
  if (!exists.rows[0]?.table) return [];
  const applied = (await db.execute(
    sql`select created_at from ${MIGRATIONS_TABLE} order by created_at`,
  )) as unknown as { rows: { created_at: string | number }[] };
  return applied.rows.map((row) => Number(row.created_at));
}

function compare(applied: number[], known: Migration[]): SchemaState {
  const last = applied.length > 0 ? Math.max(...applied) : null;
  const knownTimes = new Set(known.map((migration) => migration.folderMillis));
  return {
    // As Drizzle decides: a migration is pending when it is newer than the newest applied one.
    pending: known.filter((m) => last === null || m.folderMillis > last).map((m) => m.tag),
    unknown: applied.filter((time) => !knownTimes.has(time) && time > (known.at(-1)?.folderMillis ?? 0))
      .length,
  };
}

/** Where the database's schema stands against this build, without changing anything. */
export async function readSchemaState(db: Database): Promise<SchemaState> {
  return compare(await appliedTimes(db), knownMigrations());
}

/**
 * Applies pending migrations in one transaction under the migration lock, so instances starting together migrate
 * once and the others find nothing left to do. Refuses a schema newer than this build. Returns what it applied.
 */
export async function migrateDatabase(db: Database): Promise<string[]> {
  const known = knownMigrations();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    await tx.execute(sql`create schema if not exists drizzle`);
    await tx.execute(
      sql`create table if not exists ${MIGRATIONS_TABLE} (id serial primary key, hash text not null, created_at bigint)`,
    );
    const state = compare(await appliedTimes(tx as unknown as Database), known);
    if (state.unknown > 0) throw new SchemaNewerError(state.unknown);
    const pending = known.filter((migration) => state.pending.includes(migration.tag));
    for (const migration of pending) {
      for (const statement of migration.sql) {
        if (statement.trim()) await tx.execute(sql.raw(statement));
      }
      await tx.execute(
        sql`insert into ${MIGRATIONS_TABLE} (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`,
      );
    }
    return pending.map((migration) => migration.tag);
  });
}
