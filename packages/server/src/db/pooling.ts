/**
 * Running behind a connection pooler. In session pooling (or with no pooler) each of our connections is one
 * PostgreSQL session for its whole life. In transaction pooling (PgBouncer's `pool_mode = transaction`, the mode
 * managed PostgreSQL offers for many app instances) a connection is lent a server session for one transaction at
 * a time, and the next transaction may run on another. Whatever lives in a session is then gone or, worse, seen by
 * another client: named prepared statements ("prepared statement … already exists" on one session, "does not
 * exist" on the next), session `SET`s, session advisory locks and `LISTEN`.
 *
 * Gatehouse's rules in transaction mode: statements are sent unnamed (parsed and planned each time, as any
 * statement through such a pooler), connections get no session settings, advisory locks are transaction-scoped
 * everywhere (migrations included, db/migrate.ts), and change notices come over a direct connection when one is
 * given (GATEHOUSE_DATABASE_DIRECT_URL), else by polling (db/notices.ts).
 */
import pg from "pg";

export type { PoolingMode, PoolingSetting } from "./pooling-setting.ts";
export { parsePoolingSetting } from "./pooling-setting.ts";

/**
 * Whether the connection string leads to a pooler that shares server sessions between its clients. Two
 * connections are opened and held at once, and each asks for its server process id, one after the other. Without
 * such a pooler two open connections are two sessions and can never share a process. A transaction pooler
 * hands the first one's server connection back after its statement, and PgBouncer reuses the most recently freed
 * server connection first, so the second asks on the same one. (A pooler that picked another server connection
 * would not be detected here; setting GATEHOUSE_DATABASE_POOLING=transaction needs no detection.)
 */
export async function sharesServerSessions(connectionString: string): Promise<boolean> {
  const first = new pg.Client({ connectionString });
  const second = new pg.Client({ connectionString });
  try {
    await Promise.all([first.connect(), second.connect()]);
    const pidOf = async (client: pg.Client) =>
      (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
    const firstPid = await pidOf(first);
    const secondPid = await pidOf(second);
    return firstPid === secondPid;
  } finally {
    await Promise.all([first.end().catch(() => {}), second.end().catch(() => {})]);
  }
}

type QueryArguments = unknown[];

/**
 * Makes a client send every statement unnamed. Drizzle's `.prepare(name)` and our `preparedSql` hand the driver a
 * statement name, which it prepares once per connection and then only binds: through a transaction pooler that
 * next bind reaches a server session that never saw the statement. Without the name the driver sends parse, bind
 * and execute together in one round trip, which any pooler forwards to one session.
 */
export function sendStatementsUnnamed(client: pg.ClientBase): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: QueryArguments) => {
    const [config] = args;
    if (
      config !== null &&
      typeof config === "object" &&
      typeof (config as { submit?: unknown }).submit !== "function" &&
      (config as { name?: unknown }).name
    ) {
      args[0] = { ...(config as object), name: undefined };
    }
    return query(...args);
  };
}
