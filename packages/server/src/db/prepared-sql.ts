/**
 * Prepared statements for hot paths. Drizzle turns a query into SQL text on every call, and PostgreSQL parses and
 * plans an unnamed statement every time; a statement prepared once skips both, which is a visible share of a cheap
 * request's cost. The statement's name must be unique in the process: PostgreSQL keeps it per connection.
 */
import { type SQL, sql } from "drizzle-orm";
import { PgDialect, type PgPreparedQuery, type PreparedQueryConfig } from "drizzle-orm/pg-core";
import { LruCache } from "../crypto/lru.ts";
import type { Database } from "./index.ts";

/**
 * One prepared query per database handle, built by `build` on first use (a Drizzle query ending in
 * `.prepare(name)`, with `sql.placeholder`s for its values).
 */
export function preparedPerDatabase<Prepared>(build: (db: Database) => Prepared): (db: Database) => Prepared {
  // Per handle (a transaction is one too); the driver keeps the named statement per connection.
  const perDatabase = new WeakMap<Database, Prepared>();
  return (db) => {
    let prepared = perDatabase.get(db);
    if (prepared === undefined) {
      prepared = build(db);
      perDatabase.set(db, prepared);
    }
    return prepared;
  };
}

/**
 * The name to `.prepare()` a statement with when PostgreSQL must plan every call for its values: the driver sends a
 * statement without a name as an unnamed one, parsed and planned each time. Drizzle's building is still saved.
 */
export const UNNAMED_STATEMENT = "";

/**
 * Statements whose SQL depends on a few options (a list's filters, its order, the kind of search) and whose values
 * change at every call: built by `build` once per shape, with `sql.placeholder`s for the values, and kept per
 * database handle (the `maxShapes` most recently used). `shape` must hold only those options, never a value: its
 * JSON is the key. Building a list's query took Drizzle about a millisecond of a search's five on a slow day.
 */
export function preparedPerShape<Shape, Prepared>(
  build: (db: Database, shape: Shape) => Prepared,
  maxShapes = 128,
): (db: Database, shape: Shape) => Prepared {
  const perDatabase = new WeakMap<Database, LruCache<string, Prepared>>();
  return (db, shape) => {
    let shapes = perDatabase.get(db);
    if (!shapes) {
      shapes = new LruCache(maxShapes);
      perDatabase.set(db, shapes);
    }
    const key = JSON.stringify(shape);
    let prepared = shapes.get(key);
    if (prepared === undefined) {
      prepared = build(db, shape);
      shapes.set(key, prepared);
    }
    return prepared;
  };
}

const dialect = new PgDialect();

export type PreparedSql<Values extends Record<string, unknown>, Row> = (
  db: Database,
  values: Values,
) => Promise<Row[]>;

/**
 * A hand-written statement (one Drizzle's builders cannot express, such as an UPDATE inside a CTE), prepared the
 * same way. Values are `sql.placeholder(name)`s in the SQL, given at each call. Rows come back as PostgreSQL sent
 * them (JSON columns as parsed by the driver), as from `db.execute`.
 */
export function preparedSql<Values extends Record<string, unknown>, Row>(
  name: string,
  statement: SQL,
): PreparedSql<Values, Row> {
  const query = dialect.sqlToQuery(statement);
  const preparedFor = preparedPerDatabase(
    (db): PgPreparedQuery<PreparedQueryConfig> => db._.session.prepareQuery(query, undefined, name, false),
  );
  return async (db, values) => {
    const result = (await preparedFor(db).execute(values)) as { rows: Row[] };
    return result.rows;
  };
}

/**
 * A fragment without values, as SQL text rendered once. Drizzle walks every chunk of a query each time it builds
 * one (an entity check per chunk); the user-relation columns of every `GET /users` page alone were a few hundred
 * chunks, a quarter of the request's query building. Only for fragments whose text never changes.
 */
export function sqlRenderedOnce<T>(fragment: SQL<T>): SQL<T> {
  const { sql: text, params } = dialect.sqlToQuery(fragment);
  if (params.length > 0) throw new TypeError("sqlRenderedOnce takes fragments without values");
  return sql.raw(text) as SQL<T>;
}
