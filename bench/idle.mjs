// Idle is idle (issue 38): how many statements an instance with nothing to do sends to PostgreSQL. Starts the built
// server on a scratch database, waits until it is ready and has settled, then counts the transactions its
// connections commit over a quiet window (pg_stat_database.xact_commit; the counting connection's own are taken
// out). Target: none for minutes (the workers' backstop is five minutes, background/work-notices.ts).
//
//   npm run build && node bench/idle.mjs [--seconds 240]
//
// Needs the local PostgreSQL (127.0.0.1:5432, trust auth); the scratch database is dropped afterwards.
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const secondsArg = process.argv.indexOf("--seconds");
const windowSeconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 240;
const adminUrl = "postgres://postgres@127.0.0.1:5432/postgres";
const database = `gatehouse_idle_${process.pid}`;

const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database ${database}`);
const port = await freePort();
const child = spawn(process.execPath, ["packages/server/dist/main.js"], {
  cwd: root,
  env: {
    ...process.env,
    PORT: String(port),
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
    GATEHOUSE_LOG_LEVEL: "warn",
  },
  detached: true,
  stdio: ["ignore", "ignore", "inherit"],
});
try {
  while (
    !(await fetch(`http://127.0.0.1:${port}/ready`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (child.exitCode !== null) throw new Error("the server exited before it was ready");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // The first passes happen just after ready, and an idle backend reports its statistics only every ~10 s
  // (PostgreSQL 15's PGSTAT_IDLE_INTERVAL): let both pass, so the boot's own work is not counted.
  await new Promise((resolve) => setTimeout(resolve, 20_000));
  const commits = async () =>
    Number(
      (await admin.query("select xact_commit from pg_stat_database where datname = $1", [database])).rows[0]
        .xact_commit,
    );
  // Which tables the idle instance reads, from the scratch database's own statistics.
  const scratch = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:5432/${database}` });
  await scratch.connect();
  const reads = async () =>
    new Map(
      (
        await scratch.query(
          "select relname, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as scans, n_tup_ins + n_tup_upd + n_tup_del as writes from pg_stat_user_tables",
        )
      ).rows.map((row) => [row.relname, Number(row.scans) + Number(row.writes)]),
    );
  // Statistics reach pg_stat_database when a backend reports them; ask for a fresh snapshot each time.
  await admin.query("select pg_stat_clear_snapshot()");
  await scratch.query("select pg_stat_clear_snapshot()");
  const tablesBefore = await reads();
  const before = await commits();
  const began = Date.now();
  await new Promise((resolve) => setTimeout(resolve, windowSeconds * 1000));
  await admin.query("select pg_stat_clear_snapshot()");
  await scratch.query("select pg_stat_clear_snapshot()");
  const after = await commits();
  const tablesAfter = await reads();
  await scratch.end();
  const touched = [...tablesAfter]
    .map(([table, count]) => [table, count - (tablesBefore.get(table) ?? 0)])
    .filter(([, count]) => count > 0);
  const elapsed = (Date.now() - began) / 1000;
  // Up to two of them are this bench's own reads of the scratch database's table statistics.
  const ownReads = 2;
  const statements = after - before;
  console.log(
    `idle instance on PostgreSQL: ${statements} transactions in ${elapsed.toFixed(0)} s (up to ${ownReads} are the bench's own)`,
  );
  const tables = touched.map(([table, count]) => `${table} ${count}`).join(", ");
  console.log(`  tables read or written: ${tables || "none"}`);
  console.log(
    `  target: none for minutes; ${statements <= ownReads ? "met" : `${((statements / elapsed) * 60).toFixed(1)} a minute`}`,
  );
} finally {
  process.kill(-child.pid, "SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
}
