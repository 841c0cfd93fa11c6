// Times `npm start` the way a newcomer meets it (first start on a fresh data dir, then a second start) and prints
// how much memory the idle server holds, next to a process that only opens the same embedded database: the
// difference is what the server itself costs. With DATABASE_URL set, the server runs on that PostgreSQL instead.
//
//   node bench/start.mjs            embedded PGlite
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/gatehouse_bench node bench/start.mjs   (an existing, scratch database)
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-start-bench-"));

async function freePort() {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Resident memory of a process and everything below it, in MiB, read from /proc. */
function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

function descendants(pid) {
  const children = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent === pid) children.push(Number(entry), ...descendants(Number(entry)));
    } catch {}
  }
  return children;
}

function serverPid(npmPid) {
  for (const pid of descendants(npmPid)) {
    const [program, ...args] = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    if (program.endsWith("node") && args.some((arg) => arg.endsWith("dist/main.js"))) return pid;
  }
  throw new Error("no server process found below npm");
}

async function start(label) {
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), GATEHOUSE_DATA_DIR: dataDir };
  delete env.NODE_ENV;
  const began = performance.now();
  const child = spawn("npm", ["start"], { cwd: root, env, detached: true, stdio: "ignore" });
  while (
    !(await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (child.exitCode !== null) throw new Error("npm start exited");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const readyMs = performance.now() - began;
  // A few requests, so the figure is of a server that has served, not one that only booted.
  for (let i = 0; i < 20; i++)
    await fetch(`http://127.0.0.1:${port}/api/v1/projects/current`, {
      headers: { "x-stack-project-id": "internal", "x-stack-access-type": "client" },
    });
  const rss = rssMiB(serverPid(child.pid));
  process.kill(-child.pid, "SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  console.log(
    `${label.padEnd(14)} ready in ${(readyMs / 1000).toFixed(2)} s   server RSS ${rss.toFixed(0)} MiB`,
  );
}

/** A process that only opens the embedded database the server used, for the memory the database alone takes. */
async function databaseOnly() {
  const script = `
    const { PGlite } = await import("@electric-sql/pglite");
    const db = new PGlite(${JSON.stringify(join(dataDir, "pglite"))});
    await db.query("select count(*) from users");
    const m = process.memoryUsage();
    console.log(JSON.stringify({ rss: m.rss, external: m.external }));
    await db.close();`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: join(root, "packages/server"),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  await new Promise((resolve) => child.once("exit", resolve));
  const { rss, external } = JSON.parse(out);
  console.log(
    `PGlite alone   RSS ${(rss / 2 ** 20).toFixed(0)} MiB (of which ${(external / 2 ** 20).toFixed(0)} MiB is its WebAssembly memory)`,
  );
}

try {
  console.log(`npm start, ${process.env.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : "embedded PGlite"}`);
  await start("first start");
  await start("second start");
  await start("third start");
  if (!process.env.DATABASE_URL) await databaseOnly();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
