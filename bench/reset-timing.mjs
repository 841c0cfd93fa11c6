#!/usr/bin/env node
// Does `POST /auth/password/send-reset-code` take as long for an email nobody signs in with as for an account's?
// If the known path answers later (because it mints a code and queues the email before answering), the answer time
// tells an attacker which emails have accounts. Boots a real Gatehouse in-process (as the tests do) and times the
// two kinds of request over HTTP, interleaved (known, unknown, unknown, known, ...), then prints both medians, p95
// and the difference. It imports the server's TypeScript sources, so it runs under tsx:
//   npx tsx --conditions=gatehouse-source --tsconfig packages/server/tsconfig.json bench/reset-timing.mjs [--requests 150]
// Embedded in-memory PGlite by default; with DATABASE_URL set, a fresh database on that server, dropped at the end.
//
// The requests are sent and timed from a worker thread, as a client on another machine would see them: with the
// client on the server's own event loop, the work the server does after answering would hold up the client's
// reading of the answer, and the figure would measure this process rather than the server.
//
// Every request comes from its own address (x-forwarded-for behind one trusted proxy) and names its own email, so
// the rate limits count both kinds the same way and never answer 429. Between two timed requests the bench waits
// for whatever the server does in the background (the email work, the outbox worker), untimed, so that one
// request's leftovers never land in the next one's figure.
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { startListeningServer } from "../packages/server/src/testing/listening-server.ts";
import { createSignedInUser } from "../packages/server/src/testing/users.ts";

const { values: options } = parseArgs({ options: { requests: { type: "string", default: "150" } } });
const requests = Number(options.requests);
if (!Number.isInteger(requests) || requests < 2) {
  console.error(`--requests must be an integer of at least 2, got "${options.requests}"`);
  process.exit(2);
}

const median = (sorted) => {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
/** Nearest-rank percentile: a value that was really measured. */
const percentile = (sorted, fraction) => sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)];

/** The client thread: one timed request per message, from sending it to having read the whole answer. */
const CLIENT = `
const { parentPort, workerData } = require("node:worker_threads");
const { performance } = require("node:perf_hooks");
parentPort.on("message", async ({ email, forwardedFor }) => {
  const started = performance.now();
  const response = await fetch(workerData.url, {
    method: "POST",
    headers: { ...workerData.headers, "x-forwarded-for": forwardedFor },
    body: JSON.stringify({ email, callback_url: workerData.callbackUrl }),
  });
  const text = await response.text();
  parentPort.postMessage({ ms: performance.now() - started, status: response.status, text });
});
`;

const server = await startListeningServer({ trustProxy: { hops: 1 } });
let closing;
const close = () => {
  closing ??= server.close();
  return closing;
};
process.once("SIGINT", () => {
  close().finally(() => process.exit(130));
});

try {
  await run(server);
} finally {
  await close();
}

async function run({ baseUrl, gatehouse, createProject }) {
  const project = await createProject("Reset timing bench");
  const headers = { ...project.headers("client"), "content-type": "application/json" };
  const callbackUrl = "http://localhost:3000/handler/password-reset";
  const databaseLabel =
    gatehouse.database.kind === "postgres" ? "PostgreSQL (fresh database)" : "PGlite (embedded, in memory)";

  // Accounts without a password: reset mails them too (it is how they set one), and no password hash is needed.
  const total = requests + 10;
  const known = [];
  for (let i = 0; i < total; i++) {
    const email = `known.${i}@bench.example`;
    await createSignedInUser(server, project.id, { primaryEmail: email, otpAuthEnabled: true });
    known.push(email);
  }

  const client = new Worker(CLIENT, {
    eval: true,
    workerData: { url: `${baseUrl}/api/v1/auth/password/send-reset-code`, headers, callbackUrl },
  });
  const replies = [];
  client.on("message", (reply) => replies.shift()?.(reply));
  client.on("error", (error) => {
    console.error(error);
    process.exit(1);
  });
  const ask = (request) =>
    new Promise((resolve) => {
      replies.push(resolve);
      client.postMessage(request);
    });

  let address = 0;
  async function send(email) {
    address++;
    const forwardedFor = `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`;
    const reply = await ask({ email, forwardedFor });
    if (reply.status !== 200) throw new Error(`send-reset-code answered ${reply.status}: ${reply.text}`);
    // Lets the server finish what the request left running and the outbox worker deliver it (untimed).
    await gatehouse.deps.emailWorker?.drain();
    return reply.ms;
  }

  const times = { known: [], unknown: [] };
  for (let i = 0; i < total; i++) {
    // Alternate which kind goes first, so neither always follows the other.
    const order = i % 2 === 0 ? ["known", "unknown"] : ["unknown", "known"];
    for (const kind of order) {
      const email = kind === "known" ? known[i] : `nobody.${i}@bench.example`;
      const ms = await send(email);
      // The first ten of each warm up the JIT, the connection and the templates; they are not counted.
      if (i >= 10) times[kind].push(ms);
    }
  }

  const rows = Object.entries(times).map(([kind, values]) => {
    const sorted = values.toSorted((a, b) => a - b);
    return { kind, median: median(sorted), p95: percentile(sorted, 0.95) };
  });
  console.log(`send-reset-code over HTTP, ${requests} requests of each kind, ${databaseLabel}`);
  for (const row of rows) {
    console.log(
      `  ${`${row.kind} email`.padEnd(15)} median ${row.median.toFixed(2).padStart(7)} ms   p95 ${row.p95.toFixed(2).padStart(7)} ms`,
    );
  }
  const [knownRow, unknownRow] = rows;
  console.log(
    `  difference of medians (known - unknown): ${(knownRow.median - unknownRow.median).toFixed(2)} ms`,
  );
  await client.terminate();
}
