#!/usr/bin/env node
// Webhook delivery with two worker instances on one PostgreSQL database, one of them killed (kill -9) mid-run:
// how many messages arrive, how fast, and whether any is lost or sent twice in one attempt. The parent process
// makes a fresh database with a project, an endpoint (a real HTTP receiver in this process) and N events, then
// starts two child processes, each running the server's webhook worker on its own connection pool. When a
// quarter of the messages have arrived, it SIGKILLs the first child; the second takes over the deliveries the dead
// one had claimed once their lease (3 s here) runs out. Delivery is at least once: messages the killed worker had
// sent but not yet recorded arrive again, with the same webhook-id.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test \
//     npx tsx --conditions=gatehouse-source --tsconfig packages/server/tsconfig.json bench/webhooks.mjs [--events 1000]
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { openDatabase } from "../packages/server/src/db/index.ts";
import { recordEvents } from "../packages/server/src/features/events/record.ts";
import { webhookDeliveries } from "../packages/server/src/features/webhooks/schema.ts";
import { startWebhookWorker } from "../packages/server/src/features/webhooks/worker.ts";
import { createTestServer, testEnv } from "../packages/server/src/testing/harness.ts";

const { values: options } = parseArgs({
  options: { events: { type: "string", default: "1000" }, child: { type: "string" } },
});

if (options.child) {
  // A worker instance: the server's webhook worker on its own pool, polling often, with a short lease.
  const handle = await openDatabase({ databaseUrl: options.child });
  const worker = startWebhookWorker({ env: testEnv(), db: handle.db }, { intervalMs: 100, leaseMs: 3_000 });
  process.on("SIGTERM", async () => {
    await worker.stop();
    await handle.close();
    process.exit(0);
  });
  process.stdout.write("ready\n");
} else {
  await runBench(Number(options.events));
}

async function runBench(eventCount) {
  if (!process.env.DATABASE_URL) {
    console.error(
      "Set DATABASE_URL to a PostgreSQL server: two instances need a shared database (PGlite is one process).",
    );
    process.exit(2);
  }
  // A fresh database (dropped at the end), migrated, with a project: the test harness does exactly that.
  const server = await createTestServer();
  const { rows } = await server.deps.db.execute(sql`select current_database() as name`);
  const databaseUrl = new URL(process.env.DATABASE_URL);
  databaseUrl.pathname = `/${rows[0].name}`;

  const arrivals = new Map();
  let received = 0;
  let killedAt = null;
  const children = [];
  const receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const id = String(request.headers["webhook-id"]);
      arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
      received++;
      if (killedAt === null && received >= eventCount / 4) {
        killedAt = received;
        children[0].kill("SIGKILL");
      }
      response.writeHead(200).end("ok");
    });
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));

  try {
    const project = await server.createProject("Webhooks bench");
    const created = await server.request("/api/v1/webhooks-portal/endpoints", {
      method: "POST",
      headers: project.headers("admin"),
      body: { url: `http://127.0.0.1:${receiver.address().port}/hooks` },
    });
    if (created.status !== 201) throw new Error(`endpoint: ${created.status} ${created.text}`);
    for (let start = 0; start < eventCount; start += 500) {
      const batch = Array.from({ length: Math.min(500, eventCount - start) }, (_, i) => ({
        type: "team.created",
        data: { id: `team-${start + i}`, display_name: `Team ${start + i}` },
      }));
      await recordEvents(server.deps.db, project.id, batch);
    }

    const started = performance.now();
    for (let i = 0; i < 2; i++) children.push(await startChild(databaseUrl.toString()));
    const succeeded = async () =>
      Number(
        (
          await server.deps.db.execute(
            sql`select count(*)::int as n from ${webhookDeliveries} where status = 'succeeded'`,
          )
        ).rows[0].n,
      );
    // A bench may poll: it reports the time until every delivery is recorded as succeeded.
    const deadline = Date.now() + 120_000;
    while ((await succeeded()) < eventCount && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;

    const deliveries = await server.deps.db.select().from(webhookDeliveries);
    const attemptsByEvent = new Map(deliveries.map((row) => [row.eventId, row.attempts]));
    const done = deliveries.filter((row) => row.status === "succeeded").length;
    const redelivered = received - arrivals.size;
    const sentTwiceInOneAttempt = [...arrivals].filter(
      ([id, n]) => n > (attemptsByEvent.get(id) ?? 0),
    ).length;
    const lost = eventCount - [...attemptsByEvent.keys()].filter((id) => arrivals.has(id)).length;
    console.log(
      `webhooks bench: ${eventCount} events, one endpoint, 2 worker instances on one PostgreSQL database\n` +
        `  instance 1 killed with SIGKILL after ${killedAt} messages had arrived\n` +
        `  deliveries succeeded: ${done}/${eventCount}; lost: ${lost}\n` +
        `  requests received: ${received} (${arrivals.size} distinct webhook-ids; ${redelivered} sent again after ` +
        `the kill: at least once)\n` +
        `  messages sent twice within one attempt: ${sentTwiceInOneAttempt}\n` +
        `  time: ${seconds.toFixed(2)} s (incl. the 3 s lease the survivor waits out), ` +
        `${(eventCount / seconds).toFixed(0)} messages/s`,
    );
  } finally {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) =>
            child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", resolve),
          ),
      ),
    );
    receiver.close();
    await server.close();
  }
}

/** A worker instance in a process of its own, resolved once it runs. */
function startChild(databaseUrl) {
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), "--child", databaseUrl],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`worker instance exited early (${code})`)));
    child.stdout.once("data", () => resolve(child));
  });
}
