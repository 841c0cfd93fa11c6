import { sql } from "drizzle-orm";
import { afterAll, expect, it } from "vitest";
import { openTestDatabase, postgresPoolOf } from "../testing/test-database.ts";
import type { DatabaseHandle } from "./handle.ts";

const handle = await openTestDatabase();
afterAll(() => handle.close());

const SETTING = "max_parallel_workers_per_gather";

/** The setting as each of `count` connections sees it, all held at once so that the pool must open that many. */
async function settingOnConnections(database: DatabaseHandle, count: number): Promise<string[]> {
  if (database.kind === "pglite") {
    // One engine, one connection.
    const { rows } = (await database.db.execute(sql.raw(`show ${SETTING}`))) as unknown as {
      rows: Record<string, unknown>[];
    };
    return rows.map((row) => String(row[SETTING]));
  }
  const pool = postgresPoolOf(database);
  const clients = await Promise.all(Array.from({ length: count }, () => pool.connect()));
  try {
    return await Promise.all(
      clients.map(async (client) => String((await client.query(`show ${SETTING}`)).rows[0][SETTING])),
    );
  } finally {
    for (const client of clients) client.release();
  }
}

it("plans no statement in parallel, on every connection of the pool (see open-postgres.ts for why)", async () => {
  const settings = await settingOnConnections(handle, 3);
  expect(settings).toEqual(handle.kind === "pglite" ? ["0"] : ["0", "0", "0"]);
});
