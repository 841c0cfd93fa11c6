#!/usr/bin/env node
// Where a Gatehouse server's main thread spends a session read (GET /api/v1/users/me) and a refresh (the refresh
// grant), under the load bench/compare.mjs puts on them (issue 38): the built server in production mode on a
// scratch PostgreSQL database, V8's sampling profiler running over the measured seconds of each path only, and
// the top frames by self time, grouped by function and by module (the bundle's frames traced to their sources).
// Figures, never assertions.
//
//   node bench/profile.mjs [--seconds 5] [--warmup 1] [--concurrency 16] [--top 15]
//                          [--postgres postgres://postgres@127.0.0.1:5432]
//
// Makes the scratch database gatehouse_bench_profile on that server and drops it at the end.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { PROFILE_HOOK, profileLines, summarizeProfile } from "./compare/cpu-profile.mjs";
import { gatehouseEnv, gatehousePaths } from "./compare/gatehouse.mjs";
import { measureHttp } from "./compare/load.mjs";
import { loadOptions } from "./compare/options.mjs";
import { freePort, startServer } from "./compare/processes.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { options, timing } = loadOptions({ top: { type: "string", default: "15" } });
const DATABASE = "gatehouse_bench_profile";
const databaseUrl = (name) => `${options.postgres.replace(/\/+$/, "")}/${name}`;
const log = (line) => process.stderr.write(`${line}\n`);
const scratch = mkdtempSync(join(tmpdir(), "gatehouse-profile-"));
const profileFile = join(scratch, "profile.cpuprofile");

/** Waits for the profile hook's acknowledgement: the file it creates. */
async function created(file) {
  while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** One path under load, profiled over its measured seconds only. */
async function profilePath(server, paths, name) {
  log(`${name}: warm-up, then ${timing.seconds} s profiled`);
  await measureHttp({
    ...timing,
    seconds: timing.warmupSeconds,
    warmupSeconds: 0,
    step: (_worker, agent) => paths[name](agent),
  });
  rmSync(profileFile, { force: true });
  rmSync(`${profileFile}.started`, { force: true });
  process.kill(server.pid, "SIGUSR2");
  await created(`${profileFile}.started`);
  const result = await measureHttp({
    ...timing,
    warmupSeconds: 0,
    step: (_worker, agent) => paths[name](agent),
  });
  process.kill(server.pid, "SIGUSR2");
  await created(profileFile);
  const summary = summarizeProfile(JSON.parse(readFileSync(profileFile, "utf8")));
  return { result, summary };
}

const admin = new pg.Client({ connectionString: databaseUrl("postgres") });
let server;
try {
  log("building what is stale (node scripts/build.mjs)");
  const build = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) throw new Error("node scripts/build.mjs failed");
  await admin.connect();
  await admin.query(`drop database if exists ${DATABASE} with (force)`);
  await admin.query(`create database ${DATABASE}`);

  const port = await freePort();
  const env = {
    ...gatehouseEnv({ port, databaseUrl: databaseUrl(DATABASE), dataDir: scratch }),
    GATEHOUSE_BENCH_PROFILE: profileFile,
  };
  log("starting Gatehouse with the profile hook");
  server = await startServer({
    cwd: root,
    env,
    port,
    args: ["--import", PROFILE_HOOK, "--enable-source-maps", join(root, "packages/server/dist/main.js")],
  });
  const setup = new http.Agent({ keepAlive: true });
  const paths = await gatehousePaths(setup, env.GATEHOUSE_BASE_URL, env);
  log("signing up and signing in the accounts whose sessions are read and refreshed");
  for (let i = 0; i < 32; i++) await paths.signUp(setup);
  for (let i = 0; i < 256; i++) await paths.signIn(setup);
  setup.destroy();

  const reports = [];
  for (const [name, label] of [
    ["sessionRead", "session read: GET /api/v1/users/me"],
    ["refresh", "refresh: the refresh grant at /api/v1/auth/oauth/token"],
  ]) {
    const { result, summary } = await profilePath(server, paths, name);
    reports.push(
      [
        "",
        `${label}: ${result.rate.toFixed(0)}/s, ${result.ok} requests profiled (${result.failed} failed), ` +
          `${summary.totalMs.toFixed(0)} ms of main-thread samples, ` +
          `${((summary.totalMs * 1000) / Math.max(result.ok, 1)).toFixed(0)} µs a request`,
        ...profileLines(summary, { top: Number(options.top), requests: result.ok }),
      ].join("\n"),
    );
  }
  console.log(
    `${timing.concurrency} keep-alive clients, ${timing.seconds} s profiled per path after ${timing.warmupSeconds} s ` +
      `of warm-up; PostgreSQL at ${options.postgres}. Self time of the server's main thread (sampled every 100 µs); ` +
      `"(idle)" is the thread waiting (for PostgreSQL, for the next request), "(program)" native work V8 does not ` +
      `attribute to a function (the HTTP parser, syscalls), "(garbage collector)" GC.`,
  );
  for (const report of reports) console.log(report);
} finally {
  await server?.stop().catch(() => {});
  await admin.query(`drop database if exists ${DATABASE} with (force)`).catch(() => {});
  await admin.end().catch(() => {});
  if (existsSync(scratch)) rmSync(scratch, { recursive: true, force: true });
}
