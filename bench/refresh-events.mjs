#!/usr/bin/env node
// What does recording `$token-refresh` activity cost the refresh grant? Boots a real Gatehouse in-process (as the
// tests do), signs in 200 users, then drives `POST /api/v1/auth/oauth/token` (grant_type=refresh_token) over HTTP
// with 16 requests in flight: rounds with recording off (the writer's `record` replaced by a no-op) and on, in
// turn, so that both see the same warm server. Prints refreshes per second and latency for each, and the events
// the writer wrote (one multi-row INSERT per batch, outside the request). Never asserts.
//   npx tsx --conditions=gatehouse-source --tsconfig packages/server/tsconfig.json bench/refresh-events.mjs
//     [--requests 3000] [--concurrency 16] [--rounds 3]
// Embedded in-memory PGlite by default; with DATABASE_URL set, a fresh PostgreSQL database, dropped at the end.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { and, eq, sql } from "drizzle-orm";
import { events } from "../packages/server/src/features/events/schema.ts";
import { getRenderedConfig } from "../packages/server/src/features/projects/config-store.ts";
import { issueTokens } from "../packages/server/src/features/sessions/service.ts";
import { createUser } from "../packages/server/src/features/users/service.ts";
import { startListeningServer } from "../packages/server/src/testing/listening-server.ts";

const { values: options } = parseArgs({
  options: {
    requests: { type: "string", default: "3000" },
    concurrency: { type: "string", default: "16" },
    rounds: { type: "string", default: "3" },
  },
});
const requests = Number(options.requests);
const concurrency = Number(options.concurrency);
const rounds = Number(options.rounds);
const USERS = 200;

const server = await startListeningServer();
try {
  const { deps } = server.gatehouse;
  const project = await server.createProject("Refresh bench");
  const config = await getRenderedConfig(deps, project.id);
  const tokens = [];
  for (let index = 0; index < USERS; index++) {
    const user = await createUser(deps.db, project.id, config, { displayName: `User ${index}` }, deps.hooks);
    tokens.push((await issueTokens(deps, project.id, user, config)).refresh_token);
  }
  const url = `${server.baseUrl}/api/v1/auth/oauth/token`;
  const bodyFor = (token) =>
    `grant_type=refresh_token&refresh_token=${token}&client_id=${project.id}&client_secret=${project.keys.publishableClientKey}`;

  /** `requests` refreshes, `concurrency` at a time; per-request latency and the overall rate. */
  async function run() {
    const latencies = [];
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < requests) {
        const index = next++;
        const begun = performance.now();
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": "81.2.69.142" },
          body: bodyFor(tokens[index % tokens.length]),
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`refresh answered ${response.status}`);
        latencies.push(performance.now() - begun);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      rate: requests / seconds,
      p50: latencies[Math.floor(latencies.length / 2)],
      p95: latencies[Math.ceil(latencies.length * 0.95) - 1],
    };
  }

  const record = deps.activity.record.bind(deps.activity);
  const modes = {
    off: () => {
      deps.activity.record = () => {};
    },
    on: () => {
      deps.activity.record = record;
    },
  };
  // Warm-up: connections, JIT, the GeoIP database's first load.
  modes.on();
  await run();
  await deps.activity.flush();
  const writtenBefore = deps.activity.written;

  const results = { off: [], on: [] };
  for (let round = 0; round < rounds; round++) {
    for (const mode of ["off", "on"]) {
      modes[mode]();
      results[mode].push(await run());
    }
  }
  modes.on();
  await deps.activity.flush();
  const [{ count }] = await deps.db
    .select({ count: sql`count(*)::int` })
    .from(events)
    .where(and(eq(events.projectId, project.id), eq(events.type, "$token-refresh")));

  console.log(
    `refresh grant on ${server.gatehouse.database.kind}, ${requests} refreshes x ${rounds} rounds, ${concurrency} in flight`,
  );
  for (const mode of ["off", "on"]) {
    const list = results[mode];
    const mean = (key) => list.reduce((sum, result) => sum + result[key], 0) / list.length;
    console.log(
      `  recording ${mode.padEnd(3)}: ${mean("rate").toFixed(0)} refreshes/s (rounds: ${list.map((r) => r.rate.toFixed(0)).join(", ")}), p50 ${mean("p50").toFixed(1)} ms, p95 ${mean("p95").toFixed(1)} ms`,
    );
  }
  console.log(
    `  events written while recording: ${deps.activity.written - writtenBefore} (expected ${requests * rounds}), ${count} $token-refresh rows in all, ${deps.activity.dropped} dropped`,
  );
} finally {
  await server.close();
}
