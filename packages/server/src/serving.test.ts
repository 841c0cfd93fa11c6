/**
 * Where the server listens, readiness apart from liveness, and the graceful shutdown (serving.ts, http/readiness.ts;
 * README, Deploy). The product tests run the same through the built server and SIGTERM (e2e/product).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootGatehouse, type Gatehouse } from "./bootstrap.ts";
import type { AppDeps } from "./deps.ts";
import { readServingSettings } from "./env.ts";
import { checkReadiness } from "./http/readiness.ts";
import { listen, shutDown } from "./serving.ts";
import { deferred } from "./testing/deferred.ts";
import { removeTestDataDir, testEnv } from "./testing/harness.ts";
import { openTestDatabase } from "./testing/test-database.ts";

describe("serving settings", () => {
  it("listens on loopback in development and everywhere in production, unless GATEHOUSE_HOST or HOST says", () => {
    expect(readServingSettings({}, true).hosts).toEqual(["127.0.0.1", "::1"]);
    expect(readServingSettings({}, false).hosts).toBeUndefined();
    expect(readServingSettings({ GATEHOUSE_HOST: "0.0.0.0" }, true).hosts).toEqual(["0.0.0.0"]);
    expect(readServingSettings({ HOST: "10.0.0.5, [fd00::5]" }, false).hosts).toEqual([
      "10.0.0.5",
      "fd00::5",
    ]);
    expect(readServingSettings({ GATEHOUSE_HOST: "::", HOST: "127.0.0.1" }, false).hosts).toEqual(["::"]);
  });

  it("drains for 25 s at most, and keeps listening 5 s first in production only", () => {
    expect(readServingSettings({}, true)).toMatchObject({ timeoutMs: 25_000, delayMs: 0 });
    expect(readServingSettings({}, false)).toMatchObject({ timeoutMs: 25_000, delayMs: 5_000 });
    const set = readServingSettings(
      { GATEHOUSE_SHUTDOWN_TIMEOUT: "50s", GATEHOUSE_SHUTDOWN_DELAY: "500ms" },
      false,
    );
    expect(set).toMatchObject({ timeoutMs: 50_000, delayMs: 500 });
    expect(() => readServingSettings({ GATEHOUSE_SHUTDOWN_TIMEOUT: "soon" }, false)).toThrow(
      /GATEHOUSE_SHUTDOWN_TIMEOUT/,
    );
    expect(() => readServingSettings({ GATEHOUSE_SHUTDOWN_DELAY: "30" }, false)).toThrow(/must be shorter/);
  });
});

describe("listen", () => {
  it("binds the development default to loopback addresses only, on one port", async () => {
    const app = new Hono().get("/", (c) => c.text("hi"));
    const listeners = await listen(app.fetch, readServingSettings({}, true), 0);
    try {
      const bound = listeners.servers.map((server) => server.address() as AddressInfo);
      expect(bound.length).toBeGreaterThan(0);
      for (const address of bound) {
        expect(["127.0.0.1", "::1"]).toContain(address.address);
        expect(address.port).toBe(listeners.port);
      }
      expect(await (await fetch(`http://127.0.0.1:${listeners.port}/`)).text()).toBe("hi");
    } finally {
      await Promise.all(listeners.servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });
});

describe("readiness", () => {
  let gatehouse: Gatehouse;
  const env = testEnv();

  beforeAll(async () => {
    // The workers run, as in a served process.
    gatehouse = await bootGatehouse(env, await openTestDatabase());
  }, 60_000);
  afterAll(async () => {
    await gatehouse?.close();
    await removeTestDataDir(env, {});
  });

  it("answers 200 with every check ok, and /health stays a plain liveness answer", async () => {
    const ready = await gatehouse.app.request("/ready");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: "ready",
      checks: { draining: false, database: "ok", migrations: "ok", email_worker: "ok", webhook_worker: "ok" },
    });
    expect(ready.headers.get("cache-control")).toBe("no-store");
    const health = await gatehouse.app.request("/health");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
  });

  it("says which check failed, without the error's text", async () => {
    const failing = { execute: () => Promise.reject(new Error("connect ECONNREFUSED 10.1.2.3:5432")) };
    const report = await checkReadiness({ ...gatehouse.deps, db: failing as unknown as AppDeps["db"] });
    expect(report).toEqual({
      ready: false,
      checks: {
        draining: false,
        database: "unreachable",
        migrations: "unreachable",
        email_worker: "ok",
        webhook_worker: "ok",
      },
    });
    const stopped = await checkReadiness({ ...gatehouse.deps, emailWorker: undefined });
    expect(stopped.ready).toBe(false);
    expect(stopped.checks.email_worker).toBe("stopped");
  });

  it("is not ready on a database that lacks a migration this build needs", async () => {
    const { db } = gatehouse.deps;
    const newest = sql`(select max(created_at) from drizzle.__drizzle_migrations)`;
    const [removed] = (
      (await db.execute(
        sql`delete from drizzle.__drizzle_migrations where created_at = ${newest} returning hash, created_at`,
      )) as unknown as { rows: { hash: string; created_at: string }[] }
    ).rows;
    try {
      // A handle of its own, so that the minute for which a passed check is remembered does not apply.
      const report = await checkReadiness({ ...gatehouse.deps, db: Object.create(db) });
      expect(report).toMatchObject({ ready: false, checks: { database: "ok", migrations: "pending" } });
    } finally {
      await db.execute(
        sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${removed!.hash}, ${removed!.created_at})`,
      );
    }
  });

  it("answers 503 as soon as draining begins, while requests are still served, each closing its connection", async () => {
    await gatehouse.beginDraining({ handBackAfterMs: 10_000 });
    const ready = await gatehouse.app.request("/ready");
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "unavailable", checks: { draining: true } });
    const health = await gatehouse.app.request("/health");
    expect(health.status).toBe(200);
    expect(health.headers.get("connection")).toBe("close");
    const report = await checkReadiness(gatehouse.deps);
    expect(report.checks).toMatchObject({
      draining: true,
      email_worker: "stopped",
      webhook_worker: "stopped",
    });
  });
});

/** A GET on its own connection (no agent), resolving with the status, or rejecting on a connection error. */
function get(port: number, path: string, agent: http.Agent | false = false): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port, path, agent }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    request.on("error", reject);
  });
}

describe("shutDown", () => {
  function fakeGatehouse() {
    const calls: string[] = [];
    return {
      calls,
      beginDraining: async () => {
        calls.push("draining");
      },
      close: async () => {
        calls.push("closed");
      },
    };
  }

  it("lets the request in flight finish, refuses new connections, closes idle ones, then closes the database", async () => {
    const entered = deferred();
    const release = deferred();
    const app = new Hono()
      .get("/slow", async (c) => {
        entered.resolve();
        await release.promise;
        return c.text("done");
      })
      .get("/quick", (c) => c.text("ok"));
    const listeners = await listen(app.fetch, { hosts: ["127.0.0.1"] }, 0);
    // Idle keep-alive connections would outlive the shutdown's timeout: only closing them lets it end cleanly.
    for (const server of listeners.servers) server.keepAliveTimeout = 10 * 60_000;
    const gatehouse = fakeGatehouse();
    // A keep-alive connection left idle: the shutdown must close it rather than wait for it.
    const keepAlive = new http.Agent({ keepAlive: true });
    expect(await get(listeners.port, "/quick", keepAlive)).toBe(200);

    const slow = get(listeners.port, "/slow");
    await entered.promise;
    const stopped = shutDown(gatehouse, listeners, { timeoutMs: 20_000, delayMs: 0 }, () => {});
    // New connections are refused once the listener closed (polled: closing is asynchronous).
    let refused = false;
    for (let attempt = 0; attempt < 200 && !refused; attempt++) {
      refused = await get(listeners.port, "/quick").then(
        () => false,
        () => true,
      );
      if (!refused) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(refused).toBe(true);
    expect(gatehouse.calls).toEqual(["draining"]);

    release.resolve();
    expect(await slow).toBe(200);
    expect(await stopped).toBe(true);
    expect(gatehouse.calls).toEqual(["draining", "closed"]);
    keepAlive.destroy();
  });

  it("cuts a request short at the timeout and says so", async () => {
    const entered = deferred();
    const never = deferred();
    const app = new Hono().get("/stuck", async (c) => {
      entered.resolve();
      await never.promise;
      return c.text("too late");
    });
    const listeners = await listen(app.fetch, { hosts: ["127.0.0.1"] }, 0);
    const gatehouse = fakeGatehouse();
    const stuck = get(listeners.port, "/stuck").then(
      () => "answered",
      () => "cut",
    );
    await entered.promise;
    const lines: string[] = [];
    const clean = await shutDown(gatehouse, listeners, { timeoutMs: 1_000, delayMs: 0 }, (line) =>
      lines.push(line),
    );
    expect(clean).toBe(false);
    expect(await stuck).toBe("cut");
    expect(lines.join("\n")).toContain("cut short");
    expect(gatehouse.calls).toEqual(["draining", "closed"]);
    never.resolve();
  });
});
