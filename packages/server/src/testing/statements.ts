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
/** A statement as Drizzle sent it: its text and the driver values of its parameters. */
export type SentStatement = { text: string; params: unknown[] };

const recording = new AsyncLocalStorage<SentStatement[]>();
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  // Drizzle calls it with the statement's text and parameters, though the no-op declares neither.
  const logger = NoopLogger.prototype as unknown as { logQuery: (query: string, params: unknown[]) => void };
  const original = logger.logQuery;
  logger.logQuery = function (query, params) {
    recording.getStore()?.push({ text: query, params: params ?? [] });
    original.call(this, query, params);
  };
}

/** Runs `work` and returns what it resolved to, with the text of each statement it sent, in order. */
export async function statementsSentBy<T>(
  work: () => Promise<T>,
): Promise<{ result: T; statements: string[] }> {
  const { result, sent } = await statementsWithParamsSentBy(work);
  return { result, statements: sent.map((statement) => statement.text) };
}

/** As `statementsSentBy`, with each statement's parameters, to send the statement again (to EXPLAIN it, say). */
export async function statementsWithParamsSentBy<T>(
  work: () => Promise<T>,
): Promise<{ result: T; sent: SentStatement[] }> {
  install();
  const sent: SentStatement[] = [];
  const result = await recording.run(sent, work);
  return { result, sent };
}
