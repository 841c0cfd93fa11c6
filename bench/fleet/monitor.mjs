// What the fleet uses while the load runs: database connections as PostgreSQL counts them (pg_stat_activity, on a
// direct connection of the bench's own, left out of the count) and as PgBouncer pools them (SHOW POOLS), sampled
// every half second; and CPU by process from /proc, before and after (compare/cpu.mjs).
import { readFileSync } from "node:fs";
import { cpuSample } from "../compare/cpu.mjs";
import { showPools } from "./pgbouncer.mjs";

const INTERVAL_MS = 500;

/** Samples until `stop()`, which returns the peaks and means. */
export function watchConnections({ direct, database, bouncer }) {
  const samples = [];
  let stopped = false;
  const sampleOnce = async () => {
    const { rows } = await direct.query(
      `select count(*)::int as total,
         count(*) filter (where state is not null and state <> 'idle')::int as busy,
         count(*) filter (where query ilike 'listen %')::int as listening
       from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'`,
      [database],
    );
    const pools = bouncer ? await showPools(bouncer, database).catch(() => null) : null;
    samples.push({ ...rows[0], pools });
  };
  const loop = (async () => {
    while (!stopped) {
      await sampleOnce().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    const peak = (pick) => Math.max(0, ...samples.map(pick).filter((value) => value !== undefined));
    const mean = (pick) => {
      const values = samples.map(pick).filter((value) => value !== undefined);
      return values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : 0;
    };
    const withPools = samples.filter((sample) => sample.pools);
    return {
      samples: samples.length,
      total: { peak: peak((s) => s.total), mean: mean((s) => s.total) },
      busy: { peak: peak((s) => s.busy), mean: mean((s) => s.busy) },
      listening: peak((s) => s.listening),
      pools: withPools.length
        ? {
            clActive: { peak: peak((s) => s.pools?.cl_active), mean: mean((s) => s.pools?.cl_active) },
            clWaiting: { peak: peak((s) => s.pools?.cl_waiting), mean: mean((s) => s.pools?.cl_waiting) },
            svActive: { peak: peak((s) => s.pools?.sv_active), mean: mean((s) => s.pools?.sv_active) },
            svAll: {
              peak: peak((s) => s.pools && s.pools.sv_active + s.pools.sv_idle + s.pools.sv_used),
              mean: mean((s) => s.pools && s.pools.sv_active + s.pools.sv_idle + s.pools.sv_used),
            },
            maxWaitMs: peak((s) => s.pools && s.pools.maxwait * 1000 + s.pools.maxwait_us / 1000),
          }
        : null,
    };
  };
}

/** Busy CPU of the whole machine so far in ms (/proc/stat: all but idle and iowait), to show what else ran. */
function machineBusyMs() {
  const fields = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  return (user + nice + system + irq + softirq + steal) * 10;
}

/** CPU so far of the instances, PostgreSQL, PgBouncer and this process (the generator and the sinks). */
export function cpuNow(instancePids, bouncerPid) {
  const instances = instancePids.map((pid) => cpuSample(pid));
  if (instances.some((sample) => !sample)) return null;
  const bouncer = bouncerPid ? cpuSample(bouncerPid) : null;
  return {
    instances: instances.map((sample) => ({ main: sample.main, others: sample.others })),
    postgres: instances[0].postgres,
    bouncer: bouncer ? bouncer.main + bouncer.others : 0,
    generator: instances[0].generator,
    machine: machineBusyMs(),
  };
}

/** Milliseconds of CPU between two `cpuNow` samples, by process; PostgreSQL as compare/cpu.mjs counts it. */
export function cpuBetween(before, after) {
  if (!before || !after) return null;
  let postgres = 0;
  for (const [pid, ms] of after.postgres) postgres += ms - (before.postgres.get(pid) ?? 0);
  const instances = after.instances.map((sample, index) => ({
    main: sample.main - before.instances[index].main,
    others: sample.others - before.instances[index].others,
  }));
  const instancesTotal = instances.reduce((sum, sample) => sum + sample.main + sample.others, 0);
  const bouncer = after.bouncer - before.bouncer;
  const generator = after.generator - before.generator;
  const machine = after.machine - before.machine;
  return {
    instances,
    instancesTotal,
    postgres,
    bouncer,
    generator,
    machine,
    // Other processes of the machine: anything running beside the bench skews its figures.
    outside: Math.max(0, machine - instancesTotal - postgres - bouncer - generator),
  };
}
