#!/usr/bin/env node
// Gatehouse next to Better Auth (the library people would pick instead) and next to what the machine allows, in one
// run on one PostgreSQL (issue 21): sign-up, password sign-in, session read and refresh rates with a fixed number
// of keep-alive clients for a fixed time each, the Argon2id verify rate with Gatehouse's parameters on the thread
// pool a server uses, a raw primary-key select rate, and each server's start time to /health and memory at ready.
// Prints figures, never asserts: on a shared 2-core machine absolute numbers move from run to run, the ratios
// within one run are what to read.
//
//   npm install --prefix bench     (once: Better Auth and pg, for this bench only)
//   node bench/compare.mjs [--seconds 5] [--warmup 1] [--concurrency 16]
//                          [--postgres postgres://postgres@127.0.0.1:5432] [--only sign-in]
//
// --only sign-in: sign-up (which makes the accounts), both sign-in runs and the hash limits; no session read,
// refresh, select or HTTP floor (those rows read n/a).
//
// Builds what is stale (node scripts/build.mjs), then makes scratch databases gatehouse_bench_cmp,
// betterauth_bench_cmp and select_bench_cmp on that server, and drops them at the end.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadOptions } from "./compare/options.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { options, timing } = loadOptions({ only: { type: "string" } });
if (options.only !== undefined && options.only !== "sign-in") {
  console.error(`--only takes sign-in (the one part that can run alone), not ${options.only}`);
  process.exit(2);
}

for (const name of ["better-auth", "pg"]) {
  if (!existsSync(join(root, "bench/node_modules", name, "package.json"))) {
    console.error(
      `bench/compare.mjs needs its own dependencies (Better Auth and pg, kept out of the workspace): run\n\n` +
        `  npm install --prefix bench\n`,
    );
    process.exit(1);
  }
}
// Imported only now: they load pg and Better Auth from bench/node_modules.
const { default: pg } = await import("pg");
const { measureHttp, sendOk } = await import("./compare/load.mjs");
const { cpuPerRequest, cpuSample, printCpuSplit } = await import("./compare/cpu.mjs");
const { measureFixedRate, pauseFigures } = await import("./compare/fixed-rate.mjs");
const { printTargets } = await import("./compare/targets.mjs");
const { freePort, startServer } = await import("./compare/processes.mjs");
const { argon2Limit, scryptLimit, rawSelectLimit, seedRawSelectTable } = await import("./compare/limits.mjs");
const { gatehouseEnv, gatehousePaths, MANY_USERS, startGatehouse } = await import("./compare/gatehouse.mjs");
const { betterAuthEnv, betterAuthPaths, startBetterAuth } = await import("./compare/better-auth.mjs");

const databases = {
  gatehouse: "gatehouse_bench_cmp",
  betterAuth: "betterauth_bench_cmp",
  select: "select_bench_cmp",
};
/** The measured paths as the tables name them. */
const PATH_LABELS = {
  signUp: "sign-up",
  signIn: "password sign-in",
  signInDistinct: "password sign-in, 1,000 users",
  sessionRead: "session read",
  refresh: "refresh",
};
const databaseUrl = (name) => `${options.postgres.replace(/\/+$/, "")}/${name}`;
const admin = new pg.Client({ connectionString: databaseUrl("postgres") });
const running = new Set();
const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-compare-"));
const threads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
const log = (line) => process.stderr.write(`${line}\n`);

async function dropDatabases() {
  for (const name of Object.values(databases))
    await admin.query(`drop database if exists ${name} with (force)`);
}

/** Starts a server and keeps it in `running`, so that a failure anywhere still stops it. */
async function started(start) {
  const server = await start();
  running.add(server);
  return server;
}

async function stopped(server) {
  await server.stop();
  running.delete(server);
}

/** The first start on an empty database (migrations), then a second start: the server measured further. */
async function bootTwice(label, start) {
  log(`${label}: first start`);
  const first = await started(start);
  await stopped(first);
  log(`${label}: second start`);
  const second = await started(start);
  return { first, second };
}

/** One path's rate, with its CPU per request by process (see compare/cpu.mjs) when `pid` is the server's. */
const measurePath = async (label, paths, name, pid) => {
  log(`${label}: ${name}`);
  const result = await measureHttp({
    ...timing,
    step: (_worker, agent) => paths[name](agent),
    sample: () => cpuSample(pid),
  });
  return { ...result, cpu: cpuPerRequest(result.samples.before, result.samples.after, result.ok) };
};

/**
 * Both servers stay up and each path is measured on one right after the other, with the limit it is compared
 * with next to it: load from outside (the machine is shared) drifts within a run, and what sits side by side in
 * the table should have been measured side by side in time.
 */
async function run() {
  const ghPort = await freePort();
  const ghEnv = gatehouseEnv({ port: ghPort, databaseUrl: databaseUrl(databases.gatehouse), dataDir });
  const gh = await bootTwice("Gatehouse", () => startGatehouse(root, ghEnv));
  const baPort = await freePort();
  const baEnv = betterAuthEnv({ port: baPort, databaseUrl: databaseUrl(databases.betterAuth) });
  const ba = await bootTwice("Better Auth", () => startBetterAuth(root, baEnv));

  const setupAgent = new http.Agent({ keepAlive: true });
  const ghPaths = await gatehousePaths(setupAgent, ghEnv.GATEHOUSE_BASE_URL, ghEnv);
  setupAgent.destroy();
  const baPaths = betterAuthPaths(`http://127.0.0.1:${baPort}`);
  await seedRawSelectTable(databaseUrl(databases.select));
  gh.rates = {};
  ba.rates = {};

  gh.rates.signUp = await measurePath("Gatehouse", ghPaths, "signUp", gh.second.pid);
  ba.rates.signUp = await measurePath("Better Auth", baPaths, "signUp", ba.second.pid);
  gh.rates.signIn = await measurePath("Gatehouse", ghPaths, "signIn", gh.second.pid);
  ba.rates.signIn = await measurePath("Better Auth", baPaths, "signIn", ba.second.pid);
  log(`Gatehouse: signing up to ${MANY_USERS} users`);
  await ghPaths.topUpAccounts(MANY_USERS);
  log(`argon2id verify limit (${threads} threads), before the many-users sign-in`);
  const argon2Before = await argon2Limit(root, timing);
  gh.rates.signInDistinct = await measurePath("Gatehouse", ghPaths, "signInDistinct", gh.second.pid);
  const analyzed = await analyzeWhereAutovacuumIsOff();
  log(`argon2id verify limit (${threads} threads), after it`);
  const argon2After = await argon2Limit(root, timing);
  // Load from outside moves the limit by half within minutes on a shared machine: the run compared with it (the
  // sign-in target) gets a measurement on each side, and the table their mean.
  const argon2 = {
    ...argon2After,
    rate: (argon2Before.rate + argon2After.rate) / 2,
    beforeAndAfter: [argon2Before.rate, argon2After.rate],
  };
  log(`scrypt verify limit (${threads} threads)`);
  const scrypt = await scryptLimit(timing);
  if (options.only === "sign-in") {
    gh.rssAfter = gh.second.rss();
    ba.rssAfter = ba.second.rss();
    return { argon2, scrypt, select: null, httpSelect: null, analyzed, gatehouse: gh, betterAuth: ba };
  }
  gh.rates.sessionRead = await measurePath("Gatehouse", ghPaths, "sessionRead", gh.second.pid);
  ba.rates.sessionRead = await measurePath("Better Auth", baPaths, "sessionRead", ba.second.pid);
  gh.tail = await tailAtHalf(
    "Gatehouse session read",
    gh.rates.sessionRead.rate,
    (agent) => ghPaths.sessionRead(agent),
    ghEnv.GATEHOUSE_BASE_URL,
  );
  log("raw primary-key select limit");
  const select = await rawSelectLimit(databaseUrl(databases.select), timing);
  const httpSelect = await httpSelectFloor();
  gh.rates.refresh = await measurePath("Gatehouse", ghPaths, "refresh", gh.second.pid);

  gh.rssAfter = gh.second.rss();
  ba.rssAfter = ba.second.rss();
  return { argon2, scrypt, select, httpSelect, analyzed, gatehouse: gh, betterAuth: ba };
}

/**
 * A test machine's PostgreSQL may run with autovacuum off (this workplace's does), so tables filled by the sign-up
 * and sign-in phases never get planner statistics, and a prepared statement planned on an unanalyzed table can take
 * a path ten times slower than production's: 340 µs instead of 39 µs for Gatehouse's refresh read. Both servers'
 * databases are analyzed once they hold their users and sessions, as autovacuum would have done by then. Says
 * whether it did.
 */
async function analyzeWhereAutovacuumIsOff() {
  const { rows } = await admin.query("show autovacuum");
  if (rows[0].autovacuum !== "off") return false;
  log("autovacuum is off: analyzing both databases");
  for (const name of [databases.gatehouse, databases.betterAuth]) {
    const client = new pg.Client({ connectionString: databaseUrl(name) });
    await client.connect();
    try {
      await client.query("analyze");
    } finally {
      await client.end();
    }
  }
  return true;
}

/** The same select behind a bare node:http server in its own process (compare/select-server.mjs). */
async function httpSelectFloor() {
  log("node:http + one select");
  const port = await freePort();
  const server = await started(() =>
    startServer({
      cwd: root,
      port,
      env: { ...process.env, PORT: String(port), DATABASE_URL: databaseUrl(databases.select) },
      args: [join(root, "bench/compare/select-server.mjs")],
    }),
  );
  let next = 0;
  const step = (agent) => sendOk(agent, `http://127.0.0.1:${port}`, { path: `/users/${next++ % 10_000}` });
  const result = await measureHttp({ ...timing, step: (_worker, agent) => step(agent) });
  result.tail = await tailAtHalf("HTTP floor", result.rate, step);
  await stopped(server);
  return result;
}

/**
 * Latency percentiles at half of the rate a path reached with closed-loop clients (compare/fixed-rate.mjs); with a
 * Gatehouse `metricsUrl`, also its GC time and event-loop delay over the run, to tell where a tail came from.
 */
async function tailAtHalf(label, maximum, step, metricsUrl) {
  log(`${label}: fixed rate of ${(maximum / 2).toFixed(0)}/s`);
  const before = metricsUrl ? await pauseFigures(metricsUrl) : null;
  const result = await measureFixedRate({ rate: maximum / 2, seconds: Math.max(timing.seconds, 5), step });
  if (before) result.pauses = { before, after: await pauseFigures(metricsUrl) };
  return result;
}

async function cleanUp() {
  for (const server of running) await server.stop().catch(() => {});
  running.clear();
  await dropDatabases().catch((error) => log(`could not drop the scratch databases: ${error.message}`));
  await admin.end().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
}

process.once("SIGINT", () => {
  log("interrupted: stopping the servers and dropping the scratch databases");
  cleanUp().finally(() => process.exit(130));
});

let report;
try {
  log("building what is stale (node scripts/build.mjs)");
  const build = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) throw new Error("node scripts/build.mjs failed");
  await admin.connect();
  await dropDatabases();
  for (const name of Object.values(databases)) await admin.query(`create database ${name}`);

  report = await run();
} finally {
  await cleanUp();
}
print(report);

function print({ argon2, scrypt, select, httpSelect, analyzed, gatehouse: gh, betterAuth: ba }) {
  const rate = (result) => (result ? result.rate.toFixed(result.rate < 100 ? 1 : 0) : "n/a");
  const ratio = (a, b) => (a && b ? `${(a.rate / b.rate).toFixed(a.rate / b.rate < 1 ? 3 : 2)} ×` : "");
  const { memoryCost, timeCost, parallelism } = argon2.parameters;
  const rows = [
    ["requests/s", "Gatehouse", "Better Auth", "GH / BA", "GH / limit", "BA / limit"],
    null,
    [
      "sign-up",
      rate(gh.rates.signUp),
      rate(ba.rates.signUp),
      ratio(gh.rates.signUp, ba.rates.signUp),
      ratio(gh.rates.signUp, argon2),
      ratio(ba.rates.signUp, scrypt),
    ],
    [
      "password sign-in",
      rate(gh.rates.signIn),
      rate(ba.rates.signIn),
      ratio(gh.rates.signIn, ba.rates.signIn),
      ratio(gh.rates.signIn, argon2),
      ratio(ba.rates.signIn, scrypt),
    ],
    [
      PATH_LABELS.signInDistinct,
      rate(gh.rates.signInDistinct),
      "n/a",
      "",
      ratio(gh.rates.signInDistinct, argon2),
      "",
    ],
    [
      "session read",
      rate(gh.rates.sessionRead),
      rate(ba.rates.sessionRead),
      ratio(gh.rates.sessionRead, ba.rates.sessionRead),
      ratio(gh.rates.sessionRead, select),
      ratio(ba.rates.sessionRead, select),
    ],
    ["refresh", rate(gh.rates.refresh), "n/a", "", ratio(gh.rates.refresh, select), ""],
    null,
    [`argon2id verify, m=${memoryCost} KiB t=${timeCost} p=${parallelism}`, rate(argon2), "", "", "", ""],
    ["scrypt verify, N=16384 r=16 p=1", rate(scrypt), "", "", "", ""],
    [`raw primary-key select`, rate(select), "", "", "", ""],
    ["node:http + that select (the HTTP floor)", rate(httpSelect), "", "", ratio(httpSelect, select), ""],
    null,
    [
      "first start to /health (s)",
      gh.first.readySeconds.toFixed(2),
      ba.first.readySeconds.toFixed(2),
      "",
      "",
      "",
    ],
    [
      "second start to /health (s)",
      gh.second.readySeconds.toFixed(2),
      ba.second.readySeconds.toFixed(2),
      "",
      "",
      "",
    ],
    ["RSS at ready (MiB)", gh.second.rssAtReady.toFixed(0), ba.second.rssAtReady.toFixed(0), "", "", ""],
    ["RSS after the run (MiB)", gh.rssAfter.toFixed(0), ba.rssAfter.toFixed(0), "", "", ""],
  ];
  const widths = rows[0].map((_, column) =>
    Math.max(...rows.filter(Boolean).map((row) => String(row[column]).length)),
  );
  const line = (row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[column])))
      .join("  ");
  console.log();
  console.log(
    `${timing.concurrency} keep-alive clients, ${timing.seconds} s per path after ${timing.warmupSeconds} s of ` +
      `warm-up; hashes on ${threads} libuv threads; PostgreSQL at ${options.postgres}`,
  );
  console.log();
  for (const row of rows) console.log(row ? line(row) : "-".repeat(line(rows[0]).length));
  printCpuSplit({ gatehouse: gh, betterAuth: ba, argon2, labels: PATH_LABELS });
  printTargets({ gatehouse: gh, argon2, httpSelect });
  console.log();
  console.log(
    [
      "GH / limit: sign-up and sign-in against the argon2id verify rate (Gatehouse's hash and parameters, the",
      "  @node-rs/argon2 the server loads), session read and refresh against the raw select. BA / limit: against the",
      "  scrypt verify rate (Better Auth's own hash on Node) and the raw select.",
      "Gatehouse: the built server (NODE_ENV=production), an ordinary project; session read is GET /api/v1/users/me",
      "  with an access token, refresh the refresh grant at /api/v1/auth/oauth/token. Its rate limits are raised for",
      "  the project and still counted in PostgreSQL.",
      "Better Auth: email and password, pg Pool, node:http; session read is GET /api/auth/get-session with the",
      "  session cookie. It has no refresh: the cookie is the session, extended by get-session once a day. Its rate",
      "  limits are raised and counted in memory (its default store).",
      "Raw select: one row of 10,000 by primary key, a prepared statement over a pg Pool, one connection per client.",
      ...(httpSelect
        ? [
            "HTTP floor: that select behind a bare node:http server (its own process, no framework, auth or validation,",
            `  a pool of 10 as Gatehouse's): session read ${ratio(gh.rates.sessionRead, httpSelect)} and refresh ` +
              `${ratio(gh.rates.refresh, httpSelect)} of it.`,
          ]
        : []),
      `argon2id limit: ${argon2.beforeAndAfter[0].toFixed(1)}/s before the 1,000-user sign-in run and ` +
        `${argon2.beforeAndAfter[1].toFixed(1)}/s after it; the table has their mean.`,
      "Start: `node` to /health answering 200, on an empty database (first, migrations included) and again.",
      "Order: both servers up, each path on one then the other, its limit measured next to it (load from outside",
      "  drifts within a run).",
      ...(analyzed
        ? [
            "Autovacuum is off on this PostgreSQL: both databases were analyzed after the sign-in phase, as it would.",
          ]
        : []),
    ].join("\n"),
  );
  const failures = [];
  for (const [server, result] of [
    ["Gatehouse", gh],
    ["Better Auth", ba],
  ]) {
    for (const [path, phase] of Object.entries(result.rates)) {
      if (phase.failed > 0)
        failures.push(`${server} ${path}: ${phase.failed} failed, e.g. ${phase.firstError}`);
    }
  }
  if (failures.length > 0)
    console.log(`\nFailed requests (not counted in the rates):\n${failures.join("\n")}`);
}
