/**
 * Several workers on one database deliver each message once per attempt. On PostgreSQL the second worker has a
 * connection pool of its own, as a second server instance would, and both run at the same time; on PGlite (one
 * connection) the two workers still race, interleaving their queries.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { DatabaseHandle } from "../../db/index.ts";
import { createTestServer, type TestServer } from "../../testing/harness.ts";
import { openSameTestDatabase } from "../../testing/test-database.ts";
import { recordEvents } from "../events/record.ts";
import { webhookDeliveries } from "./schema.ts";
import { createEndpoint, makeRetriesDue, startReceiver } from "./test-support.ts";
import { startWebhookWorker } from "./worker.ts";

let server: TestServer;
let secondHandle: DatabaseHandle | null = null;

beforeAll(async () => {
  server = await createTestServer();
  if (process.env.DATABASE_URL) {
    secondHandle = await openSameTestDatabase(server.deps.db);
  }
});
afterAll(async () => {
  await secondHandle?.close();
  await server.close();
});

/**
 * Records `count` events, lets two workers deliver them (every tenth message is refused once, so retries race too)
 * and returns how often the receiver saw each message id.
 */
async function deliverWithTwoWorkers(count: number) {
  const project = await server.createProject(`Two workers ${count}`);
  const seen = new Map<string, number>();
  const receiver = await startReceiver((_index, message) => {
    const arrivals = (seen.get(message.id) ?? 0) + 1;
    seen.set(message.id, arrivals);
    const refuseOnce = Number(JSON.parse(message.body).data.n) % 10 === 0 && arrivals === 1;
    return refuseOnce ? { status: 503 } : { status: 200 };
  });
  const options = { intervalMs: 3_600_000, eventBatchSize: 50, deliveryBatchSize: 20 };
  const first = startWebhookWorker(server.deps, options);
  const second = startWebhookWorker({ ...server.deps, db: secondHandle?.db ?? server.deps.db }, options);
  try {
    await createEndpoint(server, project, { url: receiver.url });
    for (let start = 0; start < count; start += 250) {
      const batch = Array.from({ length: Math.min(250, count - start) }, (_, i) => ({
        type: "team.created" as const,
        data: { n: start + i },
      }));
      await recordEvents(server.deps.db, project.id, batch);
    }
    const started = performance.now();
    await Promise.all([first.drain(), second.drain()]);
    await makeRetriesDue(server.deps.db);
    await Promise.all([first.drain(), second.drain()]);
    const seconds = (performance.now() - started) / 1000;
    const rows = await server.deps.db
      .select()
      .from(webhookDeliveries)
      .where(sql`${webhookDeliveries.projectId} = ${project.id}`);
    return { seen, rows, received: receiver.messages.length, seconds };
  } finally {
    await Promise.all([first.stop(), second.stop()]);
    await receiver.close();
  }
}

function expectEachOncePerAttempt(result: Awaited<ReturnType<typeof deliverWithTwoWorkers>>, count: number) {
  const { seen, rows } = result;
  expect(rows).toHaveLength(count);
  expect(rows.filter((row) => row.status !== "succeeded")).toEqual([]);
  expect(seen.size).toBe(count);
  // Refused once, then delivered: exactly two arrivals and two attempts; every other message exactly one.
  const attemptsById = new Map(rows.map((row) => [row.eventId, row.attempts]));
  const wrong = [...seen].filter(([id, arrivals]) => attemptsById.get(id) !== arrivals);
  expect(wrong).toEqual([]);
  expect([...seen.values()].filter((arrivals) => arrivals === 2)).toHaveLength(count / 10);
  expect(result.received).toBe(count + count / 10);
}

it("two workers on one database deliver 200 messages, each once per attempt", async () => {
  expectEachOncePerAttempt(await deliverWithTwoWorkers(200), 200);
});

if (process.env.DATABASE_URL) {
  it("two instances (two connection pools) on one PostgreSQL deliver 1,000 messages, each once per attempt", async () => {
    const result = await deliverWithTwoWorkers(1_000);
    expectEachOncePerAttempt(result, 1_000);
    console.log(
      `two instances: 1000 events, ${result.received} requests (${result.received - 1_000} planned retries), ` +
        `${result.seen.size} distinct ids, 0 duplicates, ${(result.received / result.seconds).toFixed(0)} requests/s`,
    );
  });
}
