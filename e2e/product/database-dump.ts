import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

/** Every row of one table, each as the JSON text PostgreSQL's row_to_json makes of it. */
export type DumpedTable = { name: string; rows: string[] };

/** Every ordinary table of every schema the product made, its migrations bookkeeping included. */
const TABLES = `select table_schema as schema, table_name as name from information_schema.tables
  where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
  order by 1, 2`;

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

async function dumpWith(query: (text: string) => Promise<Record<string, unknown>[]>): Promise<DumpedTable[]> {
  const tables: DumpedTable[] = [];
  for (const table of (await query(TABLES)) as { schema: string; name: string }[]) {
    const rows = await query(
      `select row_to_json(t)::text as row from ${quote(table.schema)}.${quote(table.name)} t`,
    );
    tables.push({ name: `${table.schema}.${table.name}`, rows: rows.map((row) => String(row.row)) });
  }
  return tables;
}

/** A dump of a PostgreSQL database, read while the product runs (what a backup or a stolen dump contains). */
export async function dumpPostgres(url: string): Promise<DumpedTable[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await dumpWith(async (text) => (await client.query(text)).rows);
  } finally {
    await client.end();
  }
}

/** A dump of the embedded database in `<GATEHOUSE_DATA_DIR>/pglite`, opened once the product has stopped. */
export async function dumpPglite(directory: string): Promise<DumpedTable[]> {
  const database = await PGlite.create(directory);
  try {
    return await dumpWith(async (text) => (await database.query<Record<string, unknown>>(text)).rows);
  } finally {
    await database.close();
  }
}

/** A secret the tests created, with the encodings it could be stored in (found if any of them appears). */
export type Secret = { name: string; forms: Record<string, string> };

/** A text secret as itself, hex, base64 and URL-encoded: storing it in any of these is storing it in the clear. */
export function textSecret(name: string, value: string): Secret {
  const bytes = Buffer.from(value, "utf8");
  return {
    name,
    forms: {
      plain: value,
      hex: bytes.toString("hex"),
      base64: bytes.toString("base64").replace(/=+$/, ""),
      "url-encoded": encodeURIComponent(value),
    },
  };
}

export type Finding = { secret: string; form: string; table: string; column: string };

/**
 * Looks for every form of every secret in every column of every row. Columns are looked at one by one so a
 * finding names where the secret sits; the JSON text of a column is searched, so secrets inside JSON documents and
 * escaped strings count too (the secrets here are plain ASCII, which JSON leaves as it is). A match inside a longer
 * match at the same place (the typed part of a code within the whole code) is the same leak, reported once.
 */
export function scanDump(tables: DumpedTable[], secrets: Secret[]): Finding[] {
  const found = new Map<string, Finding & { match: string }>();
  for (const table of tables) {
    for (const rowText of table.rows) {
      const row = JSON.parse(rowText) as Record<string, unknown>;
      for (const [column, value] of Object.entries(row)) {
        const text = typeof value === "string" ? value : JSON.stringify(value);
        if (!text) continue;
        for (const secret of secrets) {
          for (const [form, match] of Object.entries(secret.forms)) {
            // Some forms coincide (a plain code is its own URL encoding): one finding per place is enough.
            const key = `${secret.name}|${table.name}|${column}`;
            if (!found.has(key) && text.includes(match)) {
              found.set(key, { secret: secret.name, form, table: table.name, column, match });
            }
          }
        }
      }
    }
  }
  const all = [...found.values()];
  return all
    .filter(
      (finding) =>
        !all.some(
          (other) =>
            other !== finding &&
            other.table === finding.table &&
            other.column === finding.column &&
            other.match.length > finding.match.length &&
            other.match.includes(finding.match),
        ),
    )
    .map(({ match: _, ...finding }) => finding);
}
