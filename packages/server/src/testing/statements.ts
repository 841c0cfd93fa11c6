import { AsyncLocalStorage } from "node:async_hooks";
import { NoopLogger } from "drizzle-orm/logger";

/**
 * Which SQL statements a piece of work sends, for tests that hold a route to a fixed number of statements (no N+1).
 *
 * Every statement Gatehouse sends goes through Drizzle, whose sessions (the database's, and each transaction's own)
 * log it to a `NoopLogger` unless told otherwise; prepared statements keep that logger from the moment they were
 * built. So the logger's prototype is the one place that sees them all. Only statements sent from `work`'s own
 * async context are kept: a worker, a timer or another test's request running meanwhile is not counted.
 */
const recording = new AsyncLocalStorage<string[]>();
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  // Drizzle calls it with the statement's text and parameters, though the no-op declares neither.
  const logger = NoopLogger.prototype as unknown as { logQuery: (query: string, params: unknown[]) => void };
  const original = logger.logQuery;
  logger.logQuery = function (query, params) {
    recording.getStore()?.push(query);
    original.call(this, query, params);
  };
}

/** Runs `work` and returns what it resolved to, with the text of each statement it sent, in order. */
export async function statementsSentBy<T>(
  work: () => Promise<T>,
): Promise<{ result: T; statements: string[] }> {
  install();
  const statements: string[] = [];
  const result = await recording.run(statements, work);
  return { result, statements };
}
