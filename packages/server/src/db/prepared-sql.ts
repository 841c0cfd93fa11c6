/**
 * A hand-written statement (one Drizzle's builders cannot express, such as an UPDATE inside a CTE) prepared once:
 * Drizzle turns the SQL into text once instead of on every call, and PostgreSQL plans it once per connection under
 * its name. Values are `sql.placeholder(name)`s in the SQL and are given at each call. Rows come back as PostgreSQL
 * sent them (JSON columns as parsed by the driver), as from `db.execute`.
 */
import type { SQL } from "drizzle-orm";
import { PgDialect, type PgPreparedQuery, type PreparedQueryConfig } from "drizzle-orm/pg-core";
import type { Database } from "./index.ts";

const dialect = new PgDialect();

export type PreparedSql<Values extends Record<string, unknown>, Row> = (
  db: Database,
  values: Values,
) => Promise<Row[]>;

export function preparedSql<Values extends Record<string, unknown>, Row>(
  name: string,
  statement: SQL,
): PreparedSql<Values, Row> {
  const query = dialect.sqlToQuery(statement);
  // Per database handle (a transaction is one too): the driver keeps named statements per connection.
  const perDatabase = new WeakMap<Database, PgPreparedQuery<PreparedQueryConfig>>();
  return async (db, values) => {
    let prepared = perDatabase.get(db);
    if (!prepared) {
      prepared = db._.session.prepareQuery(query, undefined, name, false);
      perDatabase.set(db, prepared);
    }
    const result = (await prepared.execute(values)) as { rows: Row[] };
    return result.rows;
  };
}
