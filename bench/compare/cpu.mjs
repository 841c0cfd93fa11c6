// Where a path's CPU goes, per request: the server's main thread, its other threads (the libuv pool that hashes
// passwords, V8's compiler and GC helpers), PostgreSQL (every process of the server: backends, WAL writer,
// checkpointer) and this load generator. Read from /proc, so Linux only; elsewhere `cpuSample` gives null and the
// bench prints no split. Clock ticks are 10 ms, so a few seconds of load are needed for a steady figure.
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

const TICK_MS = 10;

/** utime + stime of one /proc stat line, in ms. */
function statMs(text) {
  // The process name may hold spaces and parentheses; the fields after the last ")" are fixed.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function readOrNull(path) {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null; // a thread or process that ended between listing and reading
  }
}

function threadsMs(pid) {
  let main = 0;
  let others = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const text = readOrNull(`/proc/${pid}/task/${tid}/stat`);
    if (text === null) continue;
    if (tid === String(pid)) main += statMs(text);
    else others += statMs(text);
  }
  return { main, others };
}

/** CPU so far of each PostgreSQL process, by pid: a backend that ends between two samples takes its time along. */
function postgresMsByPid() {
  const byPid = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const text = readOrNull(`/proc/${entry}/stat`);
    if (text?.includes("(postgres)")) byPid.set(entry, statMs(text));
  }
  return byPid;
}

/** CPU used so far by the server `pid`, PostgreSQL and this process; null where /proc is missing. */
export function cpuSample(pid) {
  if (!readOrNull(`/proc/${pid}/stat`)) return null;
  const own = process.cpuUsage();
  return { ...threadsMs(pid), postgres: postgresMsByPid(), generator: (own.user + own.system) / 1000 };
}

/**
 * Milliseconds of CPU per request between two samples, by where it was spent. PostgreSQL counts the processes alive
 * at the second sample (new ones whole); one that ended in between is left out, rather than subtracted.
 */
export function cpuPerRequest(before, after, requests) {
  if (!before || !after || requests === 0) return null;
  let postgres = 0;
  for (const [pid, ms] of after.postgres) postgres += ms - (before.postgres.get(pid) ?? 0);
  return {
    main: (after.main - before.main) / requests,
    others: (after.others - before.others) / requests,
    postgres: postgres / requests,
    generator: (after.generator - before.generator) / requests,
  };
}

/**
 * Each measured path's CPU per request by where it went, and what that leaves a sign-in at 0.85 × the argon2id
 * limit: the limit's hashes keep every core busy, so each costs cores / rate, and a sign-in at 0.85 × may spend
 * 1 / 0.85 of that in all.
 */
export function printCpuSplit({ gatehouse: gh, betterAuth: ba, argon2, labels }) {
  const rows = [
    ["CPU per request (ms)", "main thread", "other threads", "PostgreSQL", "load generator", "total"],
  ];
  for (const [server, result] of [
    ["Gatehouse", gh],
    ["Better Auth", ba],
  ]) {
    for (const [path, phase] of Object.entries(result.rates)) {
      const cpu = phase.cpu;
      if (!cpu) continue;
      const parts = [cpu.main, cpu.others, cpu.postgres, cpu.generator];
      const total = parts.reduce((sum, part) => sum + part, 0);
      rows.push([`${server} ${labels[path]}`, ...[...parts, total].map((ms) => ms.toFixed(2))]);
    }
  }
  if (rows.length === 1) return; // no /proc here
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  console.log();
  for (const row of rows)
    console.log(
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[column])))
        .join("  "),
    );
  const hashMs = (availableParallelism() * 1000) / argon2.rate;
  const budgetMs = hashMs / 0.85;
  console.log(
    [
      "Other threads: the libuv pool (password hashes) and V8's helpers. PostgreSQL: all its processes. Clock ticks",
      "  are 10 ms, so short phases read coarse.",
      `The argon2id limit's hashes cost ${hashMs.toFixed(1)} ms of CPU each (${availableParallelism()} cores / ` +
        `${argon2.rate.toFixed(0)}/s): a sign-in at 0.85 × the limit`,
      `  may use ${budgetMs.toFixed(1)} ms in all, ${(budgetMs - hashMs).toFixed(1)} ms beside its hash.`,
    ].join("\n"),
  );
}
