// The fleet bench's printout: one table per instance count (routes), one across counts (throughput, errors,
// connections, CPU per request by process), then the sizing computed from those figures.
import { MIX, percentile } from "./load.mjs";

function table(rows) {
  const widths = rows[0].map((_, column) =>
    Math.max(...rows.filter(Boolean).map((row) => String(row[column]).length)),
  );
  const line = (row) =>
    row
      .map((cell, column) =>
        column === 0 ? String(cell).padEnd(widths[0]) : String(cell).padStart(widths[column]),
      )
      .join("  ");
  for (const row of rows) console.log(row ? line(row) : "-".repeat(line(rows[0]).length));
}

const fixed = (value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

function totals(phase) {
  let ok = 0;
  let failed = 0;
  for (const route of Object.values(phase.stats)) {
    ok += route.latencies.length;
    for (const n of route.failures.values()) failed += n;
  }
  return { ok, failed, rate: ok / phase.elapsed };
}

function routeTable(phase) {
  const rows = [["route", "ok/s", "p50 ms", "p99 ms", "non-2xx"], null];
  for (const name of Object.keys(MIX)) {
    const route = phase.stats[name];
    if (!route) continue;
    const failures = [...route.failures].map(([status, n]) => `${n}×${status || "error"}`).join(" ");
    rows.push([
      name,
      fixed(route.latencies.length / phase.elapsed),
      fixed(percentile(route.latencies, 50)),
      fixed(percentile(route.latencies, 99)),
      failures || "0",
    ]);
  }
  const all = totals(phase);
  const latencies = Object.values(phase.stats).flatMap((route) => route.latencies);
  rows.push(null, [
    "all",
    fixed(all.rate),
    fixed(percentile(latencies, 50)),
    fixed(percentile(latencies, 99)),
    String(all.failed),
  ]);
  table(rows);
}

/** CPU ms per answered request by process, and the derived rates. */
function perRequest(phase) {
  const { ok, rate } = totals(phase);
  const cpu = phase.cpu;
  if (!cpu || ok === 0) return null;
  return {
    rate,
    instances: cpu.instancesTotal / ok,
    postgres: cpu.postgres / ok,
    bouncer: cpu.bouncer / ok,
    generator: cpu.generator / ok,
  };
}

export function printReport({ settings, seed, phases, bouncerError, postgresSettings, machine }) {
  const through = settings.direct
    ? "connected straight to PostgreSQL (--direct)"
    : `through PgBouncer 1.18 in transaction mode (pool ${settings.poolSize})`;
  console.log();
  console.log(
    `Fleet bench: ${settings.users.toLocaleString("en")} users over ${settings.projects.toLocaleString("en")} ` +
      `projects, seeded in ${fixed(seed.seconds)} s (${fixed(seed.indexSeconds)} s of it rebuilding ` +
      `${seed.indexes} indexes); instances ${through}.`,
  );
  console.log(
    `${settings.concurrency} keep-alive clients, round robin over the instances, ${settings.seconds} s measured ` +
      `after ${settings.warmupSeconds} s of warm-up per instance count. Machine: ${machine.cores} cores, ` +
      `${fixed(machine.memoryGiB, 0)} GiB; the instances, PostgreSQL, PgBouncer and this generator share those ` +
      "cores, so past one instance they contend: that is what is measured.",
  );
  console.log(
    `Mix (weights): ${Object.entries(MIX)
      .map(([name, weight]) => `${name} ${weight}`)
      .join(", ")}.`,
  );
  for (const phase of phases) {
    console.log();
    console.log(
      `${phase.count} instance${phase.count > 1 ? "s" : ""} (started in ` +
        `${phase.starts.map((s) => fixed(s, 2)).join(", ")} s; RSS after ${phase.rss.map((r) => fixed(r, 0)).join(", ")} MiB)`,
    );
    routeTable(phase);
    const { queued, drained } = phase;
    const left = drained.left;
    console.log(
      `emails: ${phase.emails} reached the SMTP sink during the load, ${queued.emails} were still queued at its ` +
        `end; webhooks: ${phase.webhooks} received during the load, ${queued.webhooks} deliveries not yet tried. ` +
        `Drain: ${fixed(drained.seconds)} s until ${phase.emailsAll} emails and ${phase.webhooksAll} webhook ` +
        `messages in all` +
        (left.emails + left.webhooks + left.events_undispatched > 0
          ? `, then stopped with ${left.emails} emails, ${left.webhooks} deliveries and ${left.events_undispatched} events left`
          : "") +
        (left.webhooks_retrying > 0
          ? `; ${left.webhooks_retrying} webhook deliveries failed once and wait to retry`
          : ""),
    );
    if (phase.loadCpu) {
      const cpu = phase.loadCpu;
      const cores = (ms) => fixed(ms / 1000 / phase.elapsed, 2);
      console.log(
        `CPU during the load, in cores: instances ${cores(cpu.instancesTotal)}, PostgreSQL ${cores(cpu.postgres)}, ` +
          `PgBouncer ${cores(cpu.bouncer)}, generator ${cores(cpu.generator)}; the machine was busy ` +
          `${cores(cpu.machine)} of ${machine.cores}, ${cores(cpu.outside)} of it outside the bench ` +
          `(load average ${phase.loadAverage.map((n) => fixed(n, 2)).join(" ")} before the phase)`,
      );
    }
    for (const [name, route] of Object.entries(phase.stats)) {
      if (route.firstFailure) console.log(`  first non-2xx of ${name}: ${route.firstFailure}`);
    }
  }

  console.log();
  const rows = [
    [
      "instances",
      "req/s",
      "non-2xx",
      "PG conns peak/mean",
      "PG busy peak/mean",
      "PgB server peak",
      "PgB waiting peak",
      "CPU ms/req: inst",
      "PG",
      "PgB",
      "generator",
    ],
    null,
  ];
  for (const phase of phases) {
    const all = totals(phase);
    const c = phase.connections;
    const cpu = perRequest(phase);
    rows.push([
      phase.count,
      fixed(all.rate),
      all.failed,
      `${c.total.peak} / ${fixed(c.total.mean)}`,
      `${c.busy.peak} / ${fixed(c.busy.mean)}`,
      c.pools ? c.pools.svAll.peak : "n/a",
      c.pools ? c.pools.clWaiting.peak : "n/a",
      cpu ? fixed(cpu.instances, 2) : "n/a",
      cpu ? fixed(cpu.postgres, 2) : "n/a",
      cpu && !settings.direct ? fixed(cpu.bouncer, 2) : "n/a",
      cpu ? fixed(cpu.generator, 2) : "n/a",
    ]);
  }
  table(rows);
  console.log(
    "PG conns: client backends on the bench database in pg_stat_activity (the LISTEN connection of each instance " +
      "included, the sampler's own left out), sampled every 0.5 s; busy: not idle. PgB server: PgBouncer's server " +
      "connections (SHOW POOLS sv_active + sv_idle + sv_used); waiting: clients queued for one. CPU: utime + stime " +
      "from /proc per answered request, over the load and the drain after it (the email and webhook work it " +
      "queued); inst is every thread of every instance, PG every PostgreSQL process, " +
      "generator this process (load, SMTP sink, webhook receiver).",
  );
  if (!settings.direct && bouncerError)
    console.log(`PgBouncer's admin console was not reachable: ${bouncerError}`);
  for (const phase of phases) {
    if (!phase.bouncerStats) continue;
    const { before, after } = phase.bouncerStats;
    const xacts = after.total_xact_count - before.total_xact_count;
    const queries = after.total_query_count - before.total_query_count;
    const xactUs = after.total_xact_time - before.total_xact_time;
    const waitUs = after.total_wait_time - before.total_wait_time;
    console.log(
      `PgBouncer, ${phase.count} instance(s): ${xacts} transactions (${fixed(xacts / phase.elapsed, 0)}/s), ` +
        `${queries} queries, mean transaction ${fixed(xacts ? xactUs / xacts / 1000 : Number.NaN, 2)} ms, ` +
        `client wait ${fixed(waitUs / 1000, 0)} ms in all`,
    );
  }
  printSizing({ settings, phases, postgresSettings, machine });
}

/** Sizing from the figures: what one instance and one core of it answer, what each holds open, what PostgreSQL needs. */
function printSizing({ settings, phases, postgresSettings, machine }) {
  const measured = phases.map((phase) => ({ phase, cpu: perRequest(phase) })).filter((entry) => entry.cpu);
  if (measured.length === 0) return;
  // The least contended phase tells what a request costs; later phases show what contention adds on this machine.
  const base = measured[0];
  const best = measured.reduce((a, b) => (b.cpu.rate > a.cpu.rate ? b : a));
  const plural = (n) => `${n} instance${n > 1 ? "s" : ""}`;
  const counts = measured.map(({ phase }) => phase.count).join(" / ");
  const lines = [
    "",
    `Sizing (this mix; ${machine.cores} cores shared by the instances, PostgreSQL, PgBouncer and the generator):`,
    `- Instance CPU: ${fixed(base.cpu.instances, 2)} ms per request with ${plural(base.phase.count)}, so one ` +
      `instance core answers about ${fixed(1000 / base.cpu.instances, 0)} requests/s of this mix; with ` +
      `${counts} instances on these cores it took ${measured.map(({ cpu }) => fixed(cpu.instances, 2)).join(" / ")} ms ` +
      `(processes contending for ${machine.cores} cores, each instance also running its own workers)` +
      (best === base && measured.length > 1
        ? ", so more instances on these cores bought nothing. Rate per instance: "
        : ". Rate per instance: ") +
      `${measured.map(({ phase, cpu }) => fixed(cpu.rate / phase.count, 0)).join(" / ")} requests/s; the most in all: ` +
      `${fixed(best.cpu.rate, 0)}/s with ${plural(best.phase.count)}.`,
    `- PostgreSQL CPU: ${fixed(base.cpu.postgres, 2)} ms per request, about ${fixed(base.cpu.postgres, 2)} cores per ` +
      `1,000 requests/s of this mix (${fixed((best.cpu.rate * best.cpu.postgres) / 1000, 2)} cores at the best ` +
      "rate here): roughly one PostgreSQL core for every " +
      `${fixed(base.cpu.instances / base.cpu.postgres, 1)} instance cores.`,
  ];
  const peaks = measured.map(({ phase }) => phase.connections);
  if (settings.direct) {
    lines.push(
      `- Connections: ${peaks.map((c) => c.total.peak).join(" / ")} at ${counts} instances, ` +
        `${peaks.map((c, i) => fixed(c.total.peak / measured[i].phase.count, 1)).join(" / ")} per instance (a pool ` +
        "of 10 and the LISTEN connection): max_connections needs 11 per instance plus what else connects.",
    );
  } else {
    lines.push(
      `- Connections: PostgreSQL saw at most ${peaks.map((c) => c.total.peak).join(" / ")} at ${counts} instances: ` +
        `PgBouncer's server connections (${peaks.map((c) => c.pools?.svAll.peak ?? "n/a").join(" / ")}, never more ` +
        `than its pool of ${settings.poolSize}) plus one direct LISTEN connection per instance; at most ` +
        `${Math.max(...peaks.map((c) => c.busy.peak))} were busy at once (mean ` +
        `${peaks.map((c) => fixed(c.busy.mean, 1)).join(" / ")}). Each instance holds up to 10 client connections to ` +
        "PgBouncer: max_client_conn needs 10 per instance, max_connections the pool plus one per instance.",
    );
  }
  lines.push(
    `- PostgreSQL here: max_connections ${postgresSettings.max_connections}, autovacuum ` +
      `${postgresSettings.autovacuum}${postgresSettings.autovacuum === "off" ? " (analyzed after each phase instead)" : ""}.`,
  );
  for (const line of lines) console.log(line);
}
