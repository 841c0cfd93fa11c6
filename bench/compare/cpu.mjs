// Where a path's CPU goes, per request: the server's main thread, its other threads (the libuv pool that hashes
// passwords, V8's compiler and GC helpers), PostgreSQL (every process of the server: backends, WAL writer,
// checkpointer) and this load generator. Read from /proc, so Linux only; elsewhere `cpuSample` gives null and the
// bench prints no split. Clock ticks are 10 ms, so a few seconds of load are needed for a steady figure.
import { readdirSync, readFileSync } from "node:fs";

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
