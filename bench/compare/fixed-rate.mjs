// Tail latency at a fixed request rate (issue 38, item 5). The closed-loop runs in load.mjs measure how much a server
// can do; a user feels how long one request takes while the server is busy but not saturated. So each request here
// is due at a fixed time (start + i / rate), whether or not the previous ones have finished, and its latency counts
// from when it was due, not from when it could be sent: a stall that delays the requests behind it shows in their
// figures too, instead of being hidden by a client that simply waited (coordinated omission).
import http from "node:http";
import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";

/**
 * Sends `step(agent)` at `rate` per second for `seconds` (after `warmupSeconds` at the same rate whose figures are
 * dropped). At most `maxInFlight` requests are open at once: past that, a due request waits for a slot, and the wait
 * counts in its latency. Returns the latency percentiles in milliseconds, the rate achieved and the failures.
 */
export async function measureFixedRate({ rate, seconds, warmupSeconds = 1, maxInFlight = 64, step }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: maxInFlight });
  try {
    if (warmupSeconds > 0) await schedule({ rate, seconds: warmupSeconds, maxInFlight, step, agent });
    return await schedule({ rate, seconds, maxInFlight, step, agent });
  } finally {
    agent.destroy();
  }
}

async function schedule({ rate, seconds, maxInFlight, step, agent }) {
  const total = Math.max(1, Math.round(rate * seconds));
  const latencies = [];
  let failed = 0;
  let firstError;
  const inFlight = new Set();
  const started = performance.now();
  for (let index = 0; index < total; index++) {
    const due = started + (index * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await delay(wait);
    while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    const request = step(agent).then(
      () => latencies.push(performance.now() - due),
      (error) => {
        failed++;
        firstError ??= error;
      },
    );
    inFlight.add(request);
    request.finally(() => inFlight.delete(request));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rate: latencies.length / elapsed,
    ok: latencies.length,
    failed,
    firstError,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    p999: percentile(latencies, 0.999),
    max: latencies.at(-1) ?? Number.NaN,
  };
}

/** The nearest-rank percentile of sorted values (NaN for none). */
export function percentile(sorted, fraction) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length)));
  return sorted[rank - 1];
}

/**
 * What a Gatehouse instance's own `/metrics` says about pauses (prom-client's default series): the time spent in
 * garbage collection and the event loop's worst delay. Read before and after a fixed-rate run, the difference says
 * whether the tail came from GC or a blocked loop rather than from the database.
 */
export async function pauseFigures(baseUrl) {
  const text = await new Promise((resolve, reject) => {
    http
      .get(new URL("/metrics", baseUrl), (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () =>
          resolve(response.statusCode === 200 ? Buffer.concat(chunks).toString() : ""),
        );
        response.on("error", reject);
      })
      .on("error", reject);
  });
  const sum = (name) =>
    text
      .split("\n")
      .filter((line) => line.startsWith(name) && !line.startsWith("#"))
      .reduce((total, line) => total + Number(line.split(" ").at(-1)), 0);
  return {
    gcSeconds: sum("gatehouse_nodejs_gc_duration_seconds_sum"),
    gcCount: sum("gatehouse_nodejs_gc_duration_seconds_count"),
    loopDelayMaxSeconds: sum("gatehouse_nodejs_eventloop_lag_max_seconds"),
    loopDelayP99Seconds: sum("gatehouse_nodejs_eventloop_lag_p99_seconds"),
  };
}
