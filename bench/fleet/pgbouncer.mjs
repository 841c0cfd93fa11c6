// PgBouncer in transaction pooling mode, as a fleet would put it in front of PostgreSQL: started here from a
// generated ini on a free loopback port, trust auth (loopback only), one pool for the bench database. Its admin
// console (the `pgbouncer` pseudo-database, simple query protocol only) gives SHOW POOLS and SHOW STATS.
import { spawn } from "node:child_process";
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export const PGBOUNCER = "/usr/sbin/pgbouncer";

function portOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function systemUser(name) {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith(`${name}:`));
  if (!line) throw new Error(`pgbouncer will not run as root and there is no ${name} user to run it as`);
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * Starts PgBouncer for `database` on `port`, `poolSize` server connections at most for it. It refuses to run as
 * root, so as root it is told to switch to the postgres user (-u) and its folder is handed over to that user.
 */
export async function startPgBouncer({ port, database, postgres, poolSize, maxClients }) {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-fleet-pgbouncer-"));
  const upstream = new URL(postgres);
  const ini = [
    "[databases]",
    `${database} = host=${upstream.hostname} port=${upstream.port || 5432} dbname=${database} user=${upstream.username || "postgres"}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = trust",
    `auth_file = ${join(dir, "users.txt")}`,
    "admin_users = postgres",
    "stats_users = postgres",
    "pool_mode = transaction",
    `default_pool_size = ${poolSize}`,
    "min_pool_size = 0",
    "reserve_pool_size = 0",
    `max_client_conn = ${maxClients}`,
    `max_db_connections = ${poolSize}`,
    // node-postgres sends none of these today; listed so a driver that does is not refused at connect.
    "ignore_startup_parameters = extra_float_digits,options",
    "server_reset_query =",
    `logfile = ${join(dir, "pgbouncer.log")}`,
    `pidfile = ${join(dir, "pgbouncer.pid")}`,
    "log_connections = 0",
    "log_disconnections = 0",
    "stats_period = 10",
  ].join("\n");
  writeFileSync(join(dir, "pgbouncer.ini"), `${ini}\n`);
  writeFileSync(join(dir, "users.txt"), '"postgres" ""\n');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = systemUser("postgres");
    for (const file of ["", "pgbouncer.ini", "users.txt"]) chownSync(join(dir, file), uid, gid);
  }
  const args = [...(asRoot ? ["-u", "postgres"] : []), join(dir, "pgbouncer.ini")];
  const child = spawn(PGBOUNCER, args, { stdio: ["ignore", "pipe", "pipe"] });
  const tail = [];
  const keep = (chunk) => {
    tail.push(...chunk.toString("utf8").split("\n"));
    tail.splice(0, Math.max(0, tail.length - 30));
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  for (let tries = 0; !(await portOpen(port)); tries++) {
    if (child.exitCode !== null || tries > 250) {
      child.kill("SIGKILL");
      throw new Error(`pgbouncer did not start:\n${tail.join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    pid: child.pid,
    url: `postgres://postgres@127.0.0.1:${port}/${database}`,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/pgbouncer`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // SIGINT: PgBouncer's "safe shutdown" waits for clients; SIGTERM stops at once, which is what is wanted.
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A connection to PgBouncer's admin console; null (with the reason) if it cannot be reached. */
export async function openConsole(adminUrl) {
  const client = new pg.Client({ connectionString: adminUrl });
  try {
    await client.connect();
  } catch (error) {
    return { client: null, error: error.message };
  }
  client.on("error", () => {});
  return { client, error: null };
}

/** The bench database's row of SHOW POOLS, numbers as numbers. */
export async function showPools(client, database) {
  const { rows } = await client.query("SHOW POOLS");
  const row = rows.find((r) => r.database === database);
  if (!row) return null;
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value) || 0]));
}

/** The bench database's row of SHOW STATS (totals since start: transactions, queries, time in µs). */
export async function showStats(client, database) {
  const { rows } = await client.query("SHOW STATS");
  const row = rows.find((r) => r.database === database);
  if (!row) return null;
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value) || 0]));
}
