/**
 * A related row as one JSON value of a larger query, so that a user and the rows its view needs come back in one
 * statement. The JSON object uses the table's TypeScript keys; `parseJsonRow` turns timestamps (ISO text in JSON)
 * back into Dates, so the result is the row type the rest of the code knows.
 */
import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";

/** `json_build_object('key', alias."column", …)` over every column of `table`, read through `alias`. */
export function jsonRowOf(table: PgTable, alias: string): SQL {
  const pairs = Object.entries(getTableColumns(table)).map(
    // Keys are TypeScript identifiers of our own schema, so they can be written into the SQL as literals.
    ([key, column]) => sql`${sql.raw(`'${key}'`)}, ${sql.identifier(alias)}.${sql.identifier(column.name)}`,
  );
  return sql`json_build_object(${sql.join(pairs, sql`, `)})`;
}

/** The row of `table` that `jsonRowOf` encoded; null stays null. */
export function parseJsonRow<T extends PgTable>(table: T, json: unknown): T["$inferSelect"] | null {
  if (json === null || json === undefined) return null;
  const row = (typeof json === "string" ? JSON.parse(json) : json) as Record<string, unknown>;
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = row[key];
    if (column.columnType === "PgTimestamp" && typeof value === "string") row[key] = new Date(value);
  }
  return row as T["$inferSelect"];
}
