/**
 * GET /metrics through the real app and database: off by default, behind its token, and after real requests a
 * scrape in Prometheus' text format with each family of series (requests by route template, sign-ins, rate-limit
 * refusals, the project cache, the queues, the pool on PostgreSQL, the process).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPOSITORY_ROOT } from "../package-root.ts";
import { createTestServer, type TestServer } from "../testing/harness.ts";
import { passwordApi } from "../testing/sign-up.ts";
import { observePostgresPool } from "./postgres.ts";
import { QUIET_OBSERVABILITY } from "./settings.ts";

const TOKEN = "metrics-token-0123456789abcdef";
const onPostgres = Boolean(process.env.DATABASE_URL);

/** Prometheus text -> samples; throws on any line that is not a comment, a sample or blank. */
export function parsePrometheusText(
  text: string,
): { name: string; labels: Record<string, string>; value: number }[] {
  const samples: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ") || line.startsWith("# TYPE ")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`Not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? "").matchAll(
      /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g,
    )) {
      labels[name!] = value!;
    }
    const value = Number(match[3]);
    if (Number.isNaN(value) && match[3] !== "NaN") throw new Error(`Not a number: ${line}`);
    samples.push({ name: match[1]!, labels, value });
  }
  return samples;
}

describe("GET /metrics, by default", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await createTestServer();
  });
  afterAll(() => server.close());

  it("is off: 404 like an unknown path", async () => {
    const reply = await server.request("/metrics");
    expect(reply.status).toBe(404);
    expect(reply.text).toBe("Not found");
  });
});

describe("GET /metrics with GATEHOUSE_METRICS_TOKEN", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await createTestServer({
      trustProxy: { hops: 1 },
      observability: { ...QUIET_OBSERVABILITY, metrics: { enabled: true, token: TOKEN } },
    });
  });
  afterAll(() => server.close());

  const scrape = (authorization?: string) =>
    server.request("/metrics", authorization ? { headers: { authorization } } : {});

  it("refuses a missing or wrong token with 401 in plain text", async () => {
    for (const authorization of [undefined, "Bearer wrong-token-0123456789abc", `Basic ${TOKEN}`, TOKEN]) {
      const reply = await scrape(authorization);
      expect(reply.status).toBe(401);
      expect(reply.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(reply.text).not.toContain("gatehouse_");
    }
  });

  it("after real requests, serves every family of series with bounded labels", async () => {
    const project = await server.createProject("Metrics");
    await project.configure({
      "gatehouse.rateLimits.signInPerAccountFromIp": { limit: 1, windowSeconds: 300 },
    });
    const api = passwordApi(server, project);
    const from = { "x-forwarded-for": "192.0.2.77" };
    const email = `nobody-${Date.now()}@metrics.test`;
    expect((await api.signIn(email, "wrong password", from)).status).toBe(400);
    expect((await api.signIn(email, "wrong password", from)).status).toBe(429);
    const signedUp = await api.signUp({
      email: `someone-${Date.now()}@metrics.test`,
      password: "a fine password 1",
      verification_callback_url: "http://localhost:3000/handler/email-verification",
    });
    expect(signedUp.status).toBe(200);
    const user = await server.request(`/api/v1/users/${signedUp.body.user_id}`, {
      headers: project.headers("server"),
    });
    expect(user.status).toBe(200);

    const reply = await scrape(`Bearer ${TOKEN}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parsePrometheusText(reply.text);
    const find = (name: string, labels: Record<string, string> = {}) =>
      samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

    expect(samples.every((s) => s.name.startsWith("gatehouse_"))).toBe(true);
    // Route templates, never URLs: the user's id is nowhere in the scrape.
    expect(reply.text).not.toContain(signedUp.body.user_id);
    expect(
      find("gatehouse_http_requests_total", {
        route: "/api/v1/users/:user_id",
        method: "GET",
        status: "200",
      })[0]?.value,
    ).toBe(1);
    expect(
      find("gatehouse_http_request_duration_seconds_count", {
        route: "/api/v1/auth/password/sign-in",
        method: "POST",
      })[0]?.value,
    ).toBe(2);
    expect(find("gatehouse_sign_ins_total", { method: "password", outcome: "failure" })[0]?.value).toBe(1);
    expect(find("gatehouse_sign_ins_total", { method: "password", outcome: "rate_limited" })[0]?.value).toBe(
      1,
    );
    expect(find("gatehouse_rate_limit_refusals_total", { rule: "signInPerAccountFromIp" })[0]?.value).toBe(1);
    expect(
      find("gatehouse_cache_lookups_total", { cache: "project", result: "hit" })[0]?.value,
    ).toBeGreaterThan(0);
    expect(
      find("gatehouse_cache_lookups_total", { cache: "project", result: "miss" })[0]?.value,
    ).toBeGreaterThan(0);
    // The sign-up's verification email waits in the outbox: no worker runs in this test.
    expect(find("gatehouse_queue_depth", { queue: "email" })[0]?.value).toBeGreaterThan(0);
    expect(find("gatehouse_queue_depth", { queue: "webhook" })[0]?.value).toBe(0);
    expect(find("gatehouse_queue_oldest_age_seconds", { queue: "email" })).toHaveLength(1);
    expect(find("gatehouse_process_resident_memory_bytes")[0]?.value).toBeGreaterThan(0);
    if (onPostgres) {
      expect(
        find("gatehouse_db_statement_duration_seconds_count", { operation: "SELECT" })[0]?.value,
      ).toBeGreaterThan(0);
      expect(find("gatehouse_db_pool_acquire_wait_seconds_count")[0]?.value).toBeGreaterThan(0);
      expect(find("gatehouse_db_pool_connections", { state: "idle" })).toHaveLength(1);
      expect(find("gatehouse_db_pool_waiting_clients")).toHaveLength(1);
    }
  });
});

describe("deploy/grafana/gatehouse-dashboard.json", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await createTestServer({
      observability: { ...QUIET_OBSERVABILITY, metrics: { enabled: true, token: undefined } },
    });
  });
  afterAll(() => server.close());

  it("queries only series that GATEHOUSE_METRICS=public serves", async () => {
    if (!onPostgres) {
      // The embedded database has no pool; a stand-in one makes the pool's series exist, as on PostgreSQL.
      const standIn = { totalCount: 0, idleCount: 0, waitingCount: 0, on: () => {}, connect: () => {} };
      observePostgresPool(standIn as never, server.deps.observability);
    }
    const scrape = await server.request("/metrics");
    expect(scrape.status).toBe(200);
    const families = new Set([...scrape.text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const dashboard = readFileSync(`${REPOSITORY_ROOT}/deploy/grafana/gatehouse-dashboard.json`, "utf8");
    const queried = new Set([...dashboard.matchAll(/\bgatehouse_[a-z0-9_]+/g)].map((m) => m[0]));
    expect(queried.size).toBeGreaterThan(10);
    const missing = [...queried].filter(
      (name) => !families.has(name) && !families.has(name.replace(/_(bucket|count|sum)$/, "")),
    );
    expect(missing).toEqual([]);
  });
});
