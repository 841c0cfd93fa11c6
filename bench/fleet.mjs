#!/usr/bin/env node
// Scale, measured (issue 33): a fleet of Gatehouse instances on one PostgreSQL behind PgBouncer in transaction
// mode, 1, then 2, then 4 of them, under a mixed load over many projects and users: per-route latency and
// throughput, errors, database connections, CPU per request by process, and the sizing that follows. Prints
// figures, never asserts.
//
//   node bench/fleet.mjs [--users 1000000] [--projects 1000] [--seconds 20] [--warmup 3] [--concurrency 32]
//                        [--instances 1,2,4] [--pool-size 20] [--drain 60] [--direct] [--keep] [--verbose]
//                        [--postgres postgres://postgres@127.0.0.1:5432]
//
// Makes a scratch database gatehouse_fleet_bench_<random> on that PostgreSQL, seeds it (a first server start
// migrates it and makes one project through the API; SQL copies that project and adds the users), and drops it at
// the end unless --keep. --direct connects the instances straight to PostgreSQL, without PgBouncer.
// Uses pg from the workspace's node_modules (a server dependency) and nothing else outside Node.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { availableParallelism, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { gatehouseEnv, startGatehouse } from "./compare/gatehouse.mjs";
import { freePort } from "./compare/processes.mjs";
import { createFleetClient, runMix } from "./fleet/load.mjs";
import { cpuBetween, cpuNow, watchConnections } from "./fleet/monitor.mjs";
import { openConsole, PGBOUNCER, showStats, startPgBouncer } from "./fleet/pgbouncer.mjs";
import { printReport } from "./fleet/report.mjs";
import { copyProjects, makeTemplateProject, passwordHash, seedUsers } from "./fleet/seed.mjs";
import { startSmtpSink, startWebhookReceiver } from "./fleet/sinks.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values: options } = parseArgs({
  options: {
    users: { type: "string", default: "1000000" },
    projects: { type: "string", default: "1000" },
    seconds: { type: "string", default: "20" },
    warmup: { type: "string", default: "3" },
    concurrency: { type: "string", default: "32" },
    instances: { type: "string", default: "1,2,4" },
    "pool-size": { type: "string", default: "20" },
    sessions: { type: "string", default: "300" },
    drain: { type: "string", default: "60" },
    direct: { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    verbose: { type: "boolean", default: false },
    postgres: { type: "string", default: "postgres://postgres@127.0.0.1:5432" },
  },
});
const positive = (name) => {
  const value = Number(options[name]);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${name} must be a positive integer, got "${options[name]}"`);
    process.exit(2);
  }
  return value;
};
const settings = {
  users: positive("users"),
  projects: positive("projects"),
  seconds: positive("seconds"),
  warmupSeconds: Number(options.warmup) || 0,
  concurrency: positive("concurrency"),
  poolSize: positive("pool-size"),
  sessions: positive("sessions"),
  drainSeconds: Number(options.drain) || 0,
  instanceCounts: options.instances.split(",").map(Number),
  direct: options.direct,
  postgres: options.postgres.replace(/\/+$/, ""),
};
if (settings.instanceCounts.some((n) => !Number.isInteger(n) || n < 1 || n > 16)) {
  console.error(`--instances takes counts from 1 to 16 separated by commas, got "${options.instances}"`);
  process.exit(2);
}
if (settings.projects > settings.users) {
  console.error("--projects must not exceed --users");
  process.exit(2);
}
if (!settings.direct && !existsSync(PGBOUNCER)) {
  console.error(`${PGBOUNCER} is missing (apt-get install pgbouncer), or run with --direct`);
  process.exit(2);
}

const log = (line) => process.stderr.write(`${line}\n`);
const database = `gatehouse_fleet_bench_${randomBytes(4).toString("hex")}`;
const directUrl = `${settings.postgres}/${database}`;
const admin = new pg.Client({ connectionString: `${settings.postgres}/postgres` });
const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-fleet-"));
const running = new Set();
let bouncer = null;
let sinks = [];
let direct = null;

/** Instance `index` of the fleet: everything shared but its port and its data folder (uploaded files only). */
function instanceEnv(shared, port, index, databaseUrl) {
  return {
    ...shared,
    PORT: String(port),
    GATEHOUSE_DATA_DIR: join(dataDir, `instance-${index}`),
    DATABASE_URL: databaseUrl,
    ...(bouncer
      ? { GATEHOUSE_DATABASE_POOLING: "transaction", GATEHOUSE_DATABASE_DIRECT_URL: directUrl }
      : {}),
  };
}

/**
 * Others may rebuild packages/server/dist while the bench runs (the build empties it first): a start that finds
 * no bundle waits for the build to finish and tries again.
 */
async function startRetrying(start) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= 15 || !/Cannot find module|ERR_MODULE_NOT_FOUND/.test(error.message)) throw error;
      log("  packages/server/dist is being rebuilt: waiting for it");
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
}

async function startInstances(shared, count, databaseUrl) {
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  // One after another: each start is timed alone, and the first one applies no migrations left over.
  const instances = [];
  for (const [index, port] of ports.entries()) {
    const instance = await startRetrying(() =>
      startGatehouse(root, instanceEnv(shared, port, index, databaseUrl)),
    );
    running.add(instance);
    instances.push({ ...instance, baseUrl: `http://127.0.0.1:${port}` });
  }
  return instances;
}

async function stopInstances(instances) {
  await Promise.all(instances.map((instance) => instance.stop()));
  for (const instance of instances) running.delete(instance);
}

/** Sign-ins before the first phase, so refresh and /users/me have sessions spread over projects from the start. */
async function signInSessions(fleet, instances) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  let next = 0;
  const failures = [];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < settings.sessions) {
        const instance = instances[next++ % instances.length];
        const answer = await fleet.signIn(agent, instance.baseUrl);
        if (answer.status !== 200) failures.push(`${answer.status} ${answer.text.slice(0, 200)}`);
        if (failures.length > 5) throw new Error(`sign-in fails:\n${failures.join("\n")}`);
      }
    }),
  );
  agent.destroy();
}

/** What the load queued and the workers have not done yet: unsent email, webhook deliveries never attempted. */
async function backlog(direct) {
  const { rows } = await direct.query(
    `select (select count(*)::int from sent_emails where status in ('preparing','rendering','queued','sending')) as emails,
            (select count(*)::int from webhook_deliveries where status in ('pending','sending') and attempts = 0) as webhooks,
            (select count(*)::int from webhook_deliveries where status in ('pending','sending') and attempts > 0) as webhooks_retrying,
            (select count(*)::int from events e where e.dispatched_at is null) as events_undispatched`,
  );
  return rows[0];
}

/**
 * After the load: the instances keep running until the emails and webhooks it queued have gone out (first
 * attempts), at most `--drain` seconds. The workers batch and poll, so their throughput shows here, not during the
 * load alone. Returns how long that took and what was left.
 */
async function drain(direct) {
  const started = performance.now();
  const deadline = started + settings.drainSeconds * 1000;
  let left = await backlog(direct);
  while (left.emails + left.webhooks + left.events_undispatched > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    left = await backlog(direct);
  }
  return { seconds: (performance.now() - started) / 1000, left };
}

async function phase({ count, shared, fleet, direct, bouncerConsole }) {
  log(`${count} instance${count > 1 ? "s" : ""}: starting`);
  const loadAverage = loadavg();
  const databaseUrl = bouncer ? bouncer.url : directUrl;
  const instances = await startInstances(shared, count, databaseUrl);
  try {
    if (fleet.sessions.length === 0) {
      log(`  signing in ${settings.sessions} users for the sessions refresh and /users/me use`);
      await signInSessions(fleet, instances);
    }
    log(`  load: ${settings.warmupSeconds} s warm-up, then ${settings.seconds} s measured`);
    let before;
    let stopWatching;
    const result = await runMix({
      routes: fleet.routes,
      targets: instances.map((instance) => instance.baseUrl),
      seconds: settings.seconds,
      warmupSeconds: settings.warmupSeconds,
      concurrency: settings.concurrency,
      onMeasure: async () => {
        stopWatching = watchConnections({ direct, database, bouncer: bouncerConsole });
        before = {
          cpu: cpuNow(
            instances.map((instance) => instance.pid),
            bouncer?.pid,
          ),
          emails: sinks[0].messages,
          webhooks: sinks[1].received,
          stats: bouncerConsole ? await showStats(bouncerConsole, database).catch(() => null) : null,
        };
      },
    });
    const pids = instances.map((instance) => instance.pid);
    const loadCpu = cpuBetween(before.cpu, cpuNow(pids, bouncer?.pid));
    const emails = sinks[0].messages - before.emails;
    const webhooks = sinks[1].received - before.webhooks;
    const stats = bouncerConsole ? await showStats(bouncerConsole, database).catch(() => null) : null;
    const connections = await stopWatching();
    const queued = await backlog(direct);
    log(`  draining what the load queued (${queued.emails} emails, ${queued.webhooks} webhook deliveries)`);
    const drained = await drain(direct);
    const cpu = cpuBetween(before.cpu, cpuNow(pids, bouncer?.pid));
    return {
      count,
      loadAverage,
      ...result,
      cpu,
      loadCpu,
      emails,
      webhooks,
      queued,
      drained,
      emailsAll: sinks[0].messages - before.emails,
      webhooksAll: sinks[1].received - before.webhooks,
      connections,
      bouncerStats: before.stats && stats ? { before: before.stats, after: stats } : null,
      starts: instances.map((instance) => instance.readySeconds),
      rss: instances.map((instance) => instance.rss()),
    };
  } finally {
    await stopInstances(instances);
    if (options.verbose) {
      for (const [index, instance] of instances.entries())
        log(`--- instance ${index + 1} of ${count}, last lines:\n${instance.output()}`);
    }
  }
}

async function cleanUp() {
  for (const instance of running) await instance.stop().catch(() => {});
  running.clear();
  await direct?.end().catch(() => {});
  await bouncer?.stop().catch(() => {});
  for (const sink of sinks) await sink.close().catch(() => {});
  if (!options.keep) {
    await admin
      .query(`drop database if exists ${database} with (force)`)
      .catch((error) => log(`could not drop ${database}: ${error.message}`));
  } else log(`kept the database: ${directUrl}`);
  await admin.end().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
}

process.once("SIGINT", () => {
  log("interrupted: stopping the fleet and dropping the scratch database");
  cleanUp().finally(() => process.exit(130));
});

let report;
try {
  log("building the server if stale (node scripts/build.mjs server)");
  const build = spawnSync(process.execPath, ["scripts/build.mjs", "server"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) {
    if (!existsSync(join(root, "packages/server/dist/main.js"))) throw new Error("the server build failed");
    log("the build failed: measuring the last good packages/server/dist");
  }
  const smtp = await startSmtpSink();
  const receiver = await startWebhookReceiver();
  sinks = [smtp, receiver];
  await admin.connect();
  await admin.query(`create database ${database}`);
  // What Deploy asks of a database behind a transaction pooler, where the server cannot set it per session.
  await admin.query(`alter database ${database} set max_parallel_workers_per_gather = 0`);

  // The seed server: development mode, only to migrate and make the template project (a loopback webhook URL is
  // refused in production, see the report).
  const seedPort = await freePort();
  const seedEnv = {
    ...gatehouseEnv({ port: seedPort, databaseUrl: directUrl, dataDir: join(dataDir, "seed") }),
    NODE_ENV: "development",
  };
  const seedStarted = performance.now();
  log("seed: first start (migrations) and the template project through the API");
  const seedServer = await startRetrying(() => startGatehouse(root, seedEnv));
  running.add(seedServer);
  const agent = new http.Agent({ keepAlive: true });
  const template = await makeTemplateProject(agent, seedEnv.GATEHOUSE_BASE_URL, seedEnv, {
    smtpPort: smtp.port,
    webhookUrl: `http://127.0.0.1:${receiver.port}/hooks`,
  });
  agent.destroy();
  await seedServer.stop();
  running.delete(seedServer);

  direct = new pg.Client({ connectionString: directUrl });
  // Dropping the database at the end (with force) ends this connection from the server side.
  direct.on("error", () => {});
  await direct.connect();
  log(`seed: ${settings.projects} projects, ${settings.users} users (set-based SQL)`);
  const copied = await copyProjects(direct, template.projectId, settings.projects);
  if (copied.unexpected.length > 0)
    log(`  the template project also has rows in ${copied.unexpected.join(", ")}: not copied`);
  const hash = await passwordHash(root);
  const seeded = await seedUsers(direct, {
    userCount: settings.users,
    hash,
    onProgress: (done) => log(`  users: ${done}/${settings.users}`),
  });
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`seed: ${seedSeconds.toFixed(1)} s (of which ${seeded.indexSeconds.toFixed(1)} s building indexes)`);

  let bouncerConsole = null;
  let bouncerError = null;
  if (!settings.direct) {
    bouncer = await startPgBouncer({
      port: await freePort(),
      database,
      postgres: settings.postgres,
      poolSize: settings.poolSize,
      maxClients: 1000,
    });
    const opened = await openConsole(bouncer.adminUrl);
    bouncerConsole = opened.client;
    bouncerError = opened.error;
  }
  const base = gatehouseEnv({ port: 0, databaseUrl: directUrl, dataDir });
  const shared = {
    ...base,
    NODE_ENV: "production",
    // Every instance signs and verifies the same tokens, with the same issuer.
    GATEHOUSE_SECRET: seedEnv.GATEHOUSE_SECRET,
    GATEHOUSE_BASE_URL: "http://127.0.0.1:8102",
    GATEHOUSE_SEED_INTERNAL_PUBLISHABLE_CLIENT_KEY: seedEnv.GATEHOUSE_SEED_INTERNAL_PUBLISHABLE_CLIENT_KEY,
    GATEHOUSE_SEED_INTERNAL_SECRET_SERVER_KEY: seedEnv.GATEHOUSE_SEED_INTERNAL_SECRET_SERVER_KEY,
    GATEHOUSE_SEED_INTERNAL_SUPER_SECRET_ADMIN_KEY: seedEnv.GATEHOUSE_SEED_INTERNAL_SUPER_SECRET_ADMIN_KEY,
    GATEHOUSE_SEED_ADMIN_EMAIL: seedEnv.GATEHOUSE_SEED_ADMIN_EMAIL,
    GATEHOUSE_SEED_ADMIN_PASSWORD: seedEnv.GATEHOUSE_SEED_ADMIN_PASSWORD,
    GATEHOUSE_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    GATEHOUSE_EMAIL_FROM: "fleet@example.com",
    // The load sends more email per project than a new project's hourly allowance; this measures throughput.
    GATEHOUSE_EMAIL_CAPACITY_PER_HOUR: "100000000",
    // The webhook receiver is on loopback, which production refuses unless the operator allows private addresses.
    GATEHOUSE_WEBHOOK_PRIVATE_ADDRESSES: "allow",
    // Loopback only; and no drain delay: nothing routes by readiness here, and each phase stops its instances.
    GATEHOUSE_HOST: "127.0.0.1",
    GATEHOUSE_SHUTDOWN_DELAY: "0",
  };
  const fleet = createFleetClient({
    projectIds: copied.ids,
    userCount: settings.users,
    keys: template.keys,
  });
  const { rows: serverSettings } = await direct.query(
    "select current_setting('max_connections') as max_connections, current_setting('autovacuum') as autovacuum",
  );
  const phases = [];
  for (const count of settings.instanceCounts) {
    phases.push(await phase({ count, shared, fleet, direct, bouncerConsole }));
    // Autovacuum is off on this machine's PostgreSQL: the rows the phase wrote get their statistics as it would.
    if (serverSettings[0].autovacuum === "off") await direct.query("analyze");
  }
  await bouncerConsole?.end().catch(() => {});
  report = {
    settings,
    seed: { seconds: seedSeconds, ...seeded, unexpected: copied.unexpected },
    phases,
    bouncerError,
    postgresSettings: serverSettings[0],
    machine: { cores: availableParallelism(), memoryGiB: totalmem() / 2 ** 30 },
  };
} finally {
  await cleanUp();
}
printReport(report);
