import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../testing/harness.ts";
import { setClock, useRealClock } from "../testing/time.ts";
import { consumeRateLimits, countAttempts, rateLimitScope } from "./limiter.ts";
import { RATE_LIMITS } from "./rules.ts";

/**
 * Issue 19 item 3: limits that fit development. Driven through a real route limited per address (checking a
 * password reset code: RATE_LIMITS.codeCheckPerIp), with client addresses named in `x-forwarded-for` behind one
 * trusted proxy. The clock (Date only) is moved, never waited for.
 */
let development: TestServer;
let production: TestServer;
let now: number;

beforeAll(async () => {
  [development, production] = await Promise.all([
    createTestServer({ trustProxy: { hops: 1 } }),
    createTestServer({ trustProxy: { hops: 1 }, isDevelopment: false }),
  ]);
});
afterAll(() => Promise.all([development.close(), production.close()]));
beforeEach(() => {
  now = Date.now();
  setClock(now);
});
afterEach(useRealClock);

const advance = (ms: number) => {
  now += ms;
  setClock(now);
};

function checkCode(server: TestServer, project: TestProject, ip: string) {
  return server.request("/api/v1/auth/password/reset/check-code", {
    method: "POST",
    headers: project.headers("client", { "x-forwarded-for": ip }),
    body: { code: "0".repeat(45) },
  });
}

/** `count` checks from `ip` at once; how many were let through to the (failing) code lookup and how many held. */
async function burst(server: TestServer, project: TestProject, ip: string, count: number) {
  const answers = await Promise.all(Array.from({ length: count }, () => checkCode(server, project, ip)));
  return {
    passed: answers.filter((a) => a.status === 404).length,
    held: answers.filter((a) => a.status === 429).length,
  };
}

const retryAfter = (answer: { headers: Headers }) => Number(answer.headers.get("retry-after"));
const { limit, windowSeconds } = RATE_LIMITS.codeCheckPerIp;

describe("rate-limit windows", () => {
  it("start at a counter's first attempt, so a burst across a clock edge gets no second helping", async () => {
    const project = await production.createProject("Edges");
    // One second before a multiple of the window's length: where clock-aligned windows used to turn over.
    advance(windowSeconds * 1000 - (now % (windowSeconds * 1000)) - 1000);
    expect(await burst(production, project, "203.0.113.1", limit)).toEqual({ passed: limit, held: 0 });
    advance(2000);
    const held = await checkCode(production, project, "203.0.113.1");
    expect(held.status).toBe(429);
    // The window began 2 s ago; a retry succeeds when it ends, and Retry-After says exactly that.
    expect(retryAfter(held)).toBe(windowSeconds - 2);
    advance((windowSeconds - 2) * 1000 - 1);
    expect((await checkCode(production, project, "203.0.113.1")).status).toBe(429);
    advance(1);
    expect(await burst(production, project, "203.0.113.1", limit + 1)).toEqual({ passed: limit, held: 1 });
  });
});

describe("per-project rate limits (gatehouse.rateLimits)", () => {
  it("replace the built-in numbers for that project only", async () => {
    const tight = await production.createProject("Tight");
    const other = await production.createProject("Default");
    await tight.configure({ "gatehouse.rateLimits.codeCheckPerIp": { limit: 3, windowSeconds: 60 } });
    expect(await burst(production, tight, "203.0.113.2", 5)).toEqual({ passed: 3, held: 2 });
    const held = await checkCode(production, tight, "203.0.113.2");
    expect(retryAfter(held)).toBe(60);
    expect(await burst(production, other, "203.0.113.2", 5)).toEqual({ passed: 5, held: 0 });

    // Only the window was set here: the limit stays the built-in one.
    const windowOnly = await production.createProject("Window only");
    await windowOnly.configure({ "gatehouse.rateLimits.codeCheckPerIp.windowSeconds": 10 });
    expect(await burst(production, windowOnly, "203.0.113.3", limit + 1)).toEqual({ passed: limit, held: 1 });
    advance(10_000);
    expect((await checkCode(production, windowOnly, "203.0.113.3")).status).toBe(404);
  });

  it("refuse unknown rules and nonsense numbers with a 400, storing nothing", async () => {
    const project = await production.createProject("Bad limits");
    for (const override of [
      { "gatehouse.rateLimits.codeCheckPerIpp": { limit: 3 } },
      { "gatehouse.rateLimits.codeCheckPerIp.limit": 0 },
      { "gatehouse.rateLimits.codeCheckPerIp.limit": 2.5 },
      { "gatehouse.rateLimits.codeCheckPerIp.windowSeconds": 86_401 },
      { "gatehouse.rateLimits.codeCheckPerIp": "lots" },
      { "gatehouse.developmentLoopbackRateLimitFactor": 0 },
    ]) {
      await expect(project.configure(override), JSON.stringify(override)).rejects.toThrow(
        /^Config override refused: 400 /,
      );
    }
    expect(await burst(production, project, "203.0.113.4", limit + 1)).toEqual({ passed: limit, held: 1 });
  });
});

describe("loopback callers of a development server", () => {
  it("get 100 times the limits; other callers, and every caller in production, get the limits as set", async () => {
    const dev = await development.createProject("Dev loopback");
    const prod = await production.createProject("Prod loopback");
    for (const project of [dev, prod]) {
      await project.configure({ "gatehouse.rateLimits.codeCheckPerIp.limit": 2 });
    }
    expect(await burst(development, dev, "127.0.0.1", 201)).toEqual({ passed: 200, held: 1 });
    expect(await burst(development, dev, "::1", 201)).toEqual({ passed: 200, held: 1 });
    expect(await burst(development, dev, "192.168.1.20", 3)).toEqual({ passed: 2, held: 1 });
    expect(await burst(production, prod, "127.0.0.1", 3)).toEqual({ passed: 2, held: 1 });
  });

  it("get the project's own factor, so that a developer can try the real limits locally", async () => {
    const project = await development.createProject("Real limits locally");
    await project.configure({
      "gatehouse.rateLimits.codeCheckPerIp.limit": 2,
      "gatehouse.developmentLoopbackRateLimitFactor": 1,
    });
    expect(await burst(development, project, "127.0.0.1", 3)).toEqual({ passed: 2, held: 1 });
  });
});

describe("several counters in one statement", () => {
  it("counts each in its own window and answers with the first full one", async () => {
    const project = await development.createProject("Counters at once");
    const scope = rateLimitScope(
      production.deps,
      {
        project,
        config: {
          gatehouse: { rateLimits: {}, developmentLoopbackRateLimitFactor: 1, signUpRiskHeuristics: false },
        },
      },
      "203.0.113.9",
    );
    const short = { id: "signInPerIp", name: "test:short", limit: 2, windowSeconds: 60 } as const;
    const long = { id: "signInPerAccount", name: "test:long", limit: 3, windowSeconds: 3600 } as const;
    const both = () =>
      countAttempts(scope, [
        { rule: short, subject: "a" },
        { rule: long, subject: "a" },
      ]);
    expect((await both()).map((a) => a.count)).toEqual([1, 1]);
    expect((await both()).map((a) => a.count)).toEqual([2, 2]);
    // The short window ends; the long one goes on counting.
    advance(61_000);
    const third = await both();
    expect(third.map((a) => a.count)).toEqual([1, 3]);
    expect(third[0]!.windowEndsAt.getTime()).toBe(now + 60_000);
    expect(third[1]!.windowEndsAt.getTime() - third[1]!.windowStart.getTime()).toBe(3_600_000);

    // The long limit (3) is full at the next attempt, the short one (2) is not: the long one's Retry-After answers.
    const refused = await consumeRateLimits(scope, [
      { rule: short, subject: "a" },
      { rule: long, subject: "a" },
    ]).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 429 });
    expect(Number((refused as { headers: Record<string, string> }).headers["retry-after"])).toBeGreaterThan(
      60,
    );
  });
});
