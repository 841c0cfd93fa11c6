// The user list statement a request really sent, and its plan: shared by users-paging.mjs and users-search.mjs.

/**
 * The list SELECT that `request` made the server send, with its parameters, or undefined. Recorded at the driver
 * (the pool's `query`), not Drizzle's logger: list statements are built once per shape and kept, and the logger
 * only sees builds.
 */
export async function listStatementOf(db, request) {
  return (await userStatementsOf(db, request)).find(
    ({ text }) => /^select .* from "users"/is.test(text) && /order by/i.test(text) && /\blimit\b/i.test(text),
  );
}

/** Every statement `request` made the server send that reads users ordered and limited: a page, a total's count. */
export async function userStatementsOf(db, request) {
  const statements = [];
  const client = db.$client;
  const originalQuery = client.query;
  client.query = function (textOrConfig, values, ...rest) {
    const text = typeof textOrConfig === "string" ? textOrConfig : textOrConfig?.text;
    const params = typeof textOrConfig === "string" ? values : (textOrConfig?.values ?? values);
    if (typeof text === "string") statements.push({ text, params });
    return originalQuery.call(this, textOrConfig, values, ...rest);
  };
  try {
    await request();
  } finally {
    client.query = originalQuery;
  }
  return statements.filter(({ text }) => /from "users"/i.test(text) && /\blimit\b/i.test(text));
}

/** EXPLAIN ANALYZE (without costs) of the list statement `request` sent, one line per plan line. */
export async function planOfListQuery(db, request) {
  return explainStatement(db, await listStatementOf(db, request));
}

/** EXPLAIN ANALYZE (without costs) of a recorded statement, run again with its parameters. */
export async function explainStatement(db, statement) {
  if (!statement) return ["(no list statement was seen)"];
  try {
    const { rows } = await db.$client.query(
      `explain (analyze, costs off) ${statement.text}`,
      statement.params,
    );
    return rows.map((row) => row["QUERY PLAN"]);
  } catch (error) {
    return [`EXPLAIN ANALYZE failed here: ${error.message}`];
  }
}
