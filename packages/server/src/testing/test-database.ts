import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { sql } from "drizzle-orm";
import pg from "pg";
import { migrationsFolder } from "../db/handle.ts";
import { type Database, type DatabaseHandle, openDatabase } from "../db/index.ts";

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or, when DATABASE_URL is set, a new
 * database on that PostgreSQL server that is dropped again on close. Either way tests never share state.
 *
 * Both start from a copy of a database migrated once per migration set, not from scratch: on PGlite initdb and the
 * migrations took ~4 s of every open on a loaded CI machine and loading a dump of the migrated data directory takes
 * ~1 s; on PostgreSQL `create database … template` takes ~0.2 s where creating and migrating took ~0.8 s. Over ~250
 * opens per pass that is minutes of CI. Migrations still run on every open (none are pending, so it is one check),
 * and the copy is made by the same `openDatabase` that production uses.
 */
export async function openTestDatabase(): Promise<DatabaseHandle> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) return openDatabase({ pgliteDataDirDump: await migratedPgliteDump() });

  const template = await migratedTemplateDatabase(baseUrl);
  const name = `gatehouse_test_${randomBytes(6).toString("hex")}`;
  await withAdminClient(baseUrl, (admin) => admin.query(`create database ${name} template ${template}`));
  const handle = await openTestPostgres(databaseUrlWithName(baseUrl, name));
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await withAdminClient(baseUrl, (admin) => admin.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/**
 * DATABASE_URL names PostgreSQL itself (the kit creates and drops databases on it, which no transaction pooler
 * allows), so test opens run in session pooling without the start-up probes; db/pooling.test.ts opens its own.
 */
function openTestPostgres(databaseUrl: string): Promise<DatabaseHandle> {
  return openDatabase({ databaseUrl, postgres: { pooling: "session", trustSessionPooling: true } });
}

/**
 * Another pool on the PostgreSQL test database under `db`, as a second instance would open it: for tests of what
 * one instance sees of another's writes, or of a row another connection holds. Only on PostgreSQL.
 */
export async function openSameTestDatabase(db: Database): Promise<DatabaseHandle> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) throw new Error("openSameTestDatabase needs DATABASE_URL: PGlite has one connection");
  const result = await db.execute(sql`select current_database() as name`);
  const [row] = (result as unknown as { rows: { name: string }[] }).rows;
  return openTestPostgres(databaseUrlWithName(baseUrl, row!.name));
}

/**
 * The connection pool under a PostgreSQL database, for tests that need a connection of their own (to hold a lock, or
 * to see each pooled connection's settings).
 */
export function postgresPoolOf(handle: Pick<DatabaseHandle, "kind" | "pgPool">): pg.Pool {
  if (!handle.pgPool) throw new Error(`A ${handle.kind} database has no connection pool`);
  return handle.pgPool;
}

/** Names the migration set (and the PGlite build, whose dumps only it can read), so a changed one gets a new copy. */
function migrationSetKey(): string {
  const hash = createHash("sha256");
  for (const file of readdirSync(migrationsFolder, { recursive: true, encoding: "utf8" }).sort()) {
    if (!file.endsWith(".sql") && !file.endsWith("_journal.json")) continue;
    hash.update(file).update(readFileSync(join(migrationsFolder, file)));
  }
  // The package exports no package.json; its folder is found from its entry point.
  let pgliteFolder = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  while (!existsSync(join(pgliteFolder, "package.json"))) pgliteFolder = dirname(pgliteFolder);
  hash.update(`pglite ${JSON.parse(readFileSync(join(pgliteFolder, "package.json"), "utf8")).version}`);
  return hash.digest("hex").slice(0, 16);
}

/**
 * The dump of a migrated in-memory PGlite, kept in the OS temp folder. Two test workers may both find it missing
 * and both write it; each writes its own file and renames it into place, so a reader never sees half a dump.
 */
async function migratedPgliteDump(): Promise<Blob> {
  const path = join(tmpdir(), `gatehouse-test-pglite-${migrationSetKey()}.tar`);
  if (existsSync(path)) return new Blob([await readFile(path)]);
  const handle = await openDatabase({});
  try {
    const client = (handle.db as unknown as { $client: { dumpDataDir: (c: "none") => Promise<Blob> } })
      .$client;
    const dump = await client.dumpDataDir("none");
    const partial = `${path}.${randomBytes(4).toString("hex")}.partial`;
    await writeFile(partial, new Uint8Array(await dump.arrayBuffer()));
    await rename(partial, path);
    return dump;
  } finally {
    await handle.close();
  }
}

/** Any fixed number; it only has to differ from the migration lock's, which the template's own migration takes. */
const TEMPLATE_LOCK_ID = 7_402_114;

/**
 * A migrated database on the server that test databases are copied from. It is built under a temporary name and
 * renamed when complete, under an advisory lock, so concurrent workers (or test runs) wait for one builder and never
 * copy a half-migrated template. Nothing stays connected to it: PostgreSQL refuses to copy a database in use.
 */
async function migratedTemplateDatabase(baseUrl: string): Promise<string> {
  const template = `gatehouse_test_template_${migrationSetKey()}`;
  await withAdminClient(baseUrl, async (admin) => {
    await admin.query("select pg_advisory_lock($1)", [TEMPLATE_LOCK_ID]);
    try {
      const existing = await admin.query("select 1 from pg_database where datname = $1", [template]);
      if (existing.rowCount) return;
      const building = `${template}_building`;
      await admin.query(`drop database if exists ${building} with (force)`);
      await admin.query(`create database ${building}`);
      const handle = await openTestPostgres(databaseUrlWithName(baseUrl, building));
      await handle.close();
      await admin.query(`alter database ${building} rename to ${template}`);
    } finally {
      await admin.query("select pg_advisory_unlock($1)", [TEMPLATE_LOCK_ID]).catch(() => {});
    }
  });
  return template;
}

function databaseUrlWithName(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdminClient<T>(baseUrl: string, use: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.end();
  }
}
