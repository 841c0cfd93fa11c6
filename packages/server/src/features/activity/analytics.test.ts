import { and, eq, sql } from "drizzle-orm";
import type { PgPreparedQuery, PreparedQueryConfig } from "drizzle-orm/pg-core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { deferred } from "../../testing/deferred.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { openSameTestDatabase } from "../../testing/test-database.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { events } from "../events/schema.ts";
import { sessions } from "../sessions/schema.ts";
import { ActivityWriter } from "./analytics.ts";

let server: TestServer;
let project: TestProject;

/** A GB address in the GeoLite2 country database the geoip-country package ships. */
const GB_IP = "81.2.69.142";
const US_IP = "8.8.8.8";

beforeAll(async () => {
  server = await createTestServer({ trustProxy: { hops: 1 } });
  project = await server.createProject("Activity");
});
afterAll(() => server.close());
afterEach(() => vi.useRealTimers());

async function eventsOf(projectId: string, type: string) {
  return server.deps.db
    .select()
    .from(events)
    .where(and(eq(events.projectId, projectId), eq(events.type, type)));
}

function event(projectId: string, index: number) {
  return { projectId, type: "$click" as const, data: { index }, userId: null };
}

/**
 * The writer's own view of the database: every prepared statement it runs passes `beforeInsert` first when it
 * inserts (the writer's statements are all prepared), so a test can count or hold them.
 */
function dbWatchingInserts(beforeInsert: () => void | Promise<void>): Database {
  const session = server.deps.db._.session;
  return {
    _: {
      session: {
        prepareQuery: (query: { sql: string }, ...rest: unknown[]) => {
          const prepared = (
            session.prepareQuery as (...args: unknown[]) => PgPreparedQuery<PreparedQueryConfig>
          )(query, ...rest);
          return {
            execute: async (values: Record<string, unknown>) => {
              // The events' INSERT leads a WITH (it upserts the activity rollup too); the touches are UPDATEs.
              if (/\binsert\s+into\b/i.test(query.sql)) await beforeInsert();
              return prepared.execute(values);
            },
          };
        },
      },
    },
  } as unknown as Database;
}

describe("ActivityWriter", () => {
  it("buffers events and writes them in batches, with dispatched_at set", async () => {
    const target = await server.createProject("Batches");
    let inserts = 0;
    const counting = dbWatchingInserts(() => {
      inserts++;
    });
    const writer = new ActivityWriter(counting, { batchSize: 3 });
    writer.record(event(target.id, 1));
    writer.record(event(target.id, 2));
    expect(writer.pending).toBe(2);
    expect(inserts).toBe(0);
    // The third event fills a batch: it is written without anyone asking.
    writer.record(event(target.id, 3));
    await writer.whenIdle();
    expect(inserts).toBe(1);
    // Seven more: two full batches and one of one, an INSERT each.
    for (let index = 4; index <= 10; index++) writer.record(event(target.id, index));
    await writer.flush();
    expect(inserts).toBe(4);
    const rows = await eventsOf(target.id, "$click");
    expect(rows.map((row) => (row.data as { index: number }).index).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    expect(rows.every((row) => row.dispatchedAt !== null)).toBe(true);
    expect(writer.written).toBe(10);
    await writer.stop();
  });

  it("writes a partial batch a second after its first event", async () => {
    const target = await server.createProject("Timer");
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const writer = new ActivityWriter(server.deps.db, { flushIntervalMs: 1000 });
    writer.record(event(target.id, 1));
    vi.advanceTimersByTime(999);
    expect(writer.pending).toBe(1);
    vi.advanceTimersByTime(1);
    await writer.whenIdle();
    expect(writer.pending).toBe(0);
    expect(await eventsOf(target.id, "$click")).toHaveLength(1);
    await writer.stop();
  });

  it("writes what is buffered when stopped, and takes nothing after", async () => {
    const target = await server.createProject("Stop");
    const writer = new ActivityWriter(server.deps.db);
    writer.record(event(target.id, 1));
    writer.record(event(target.id, 2));
    await writer.stop();
    writer.record(event(target.id, 3));
    expect(writer.pending).toBe(0);
    expect(await eventsOf(target.id, "$click")).toHaveLength(2);
  });

  it("loses only a deleted project's events when a batch mixes projects", async () => {
    const kept = await server.createProject("Kept");
    const gone = await server.createProject("Gone");
    const writer = new ActivityWriter(server.deps.db);
    writer.record(event(kept.id, 1));
    writer.record(event(gone.id, 2));
    await server.request(`/api/v1/internal/projects/current`, {
      method: "DELETE",
      headers: gone.headers("admin"),
    });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      await writer.stop();
    } finally {
      errors.mockRestore();
    }
    expect(await eventsOf(kept.id, "$click")).toHaveLength(1);
    expect(writer.written).toBe(1);
    expect(writer.dropped).toBe(1);
  });

  it("writes in a flush only what was buffered when it started, so steady traffic makes full batches", async () => {
    const target = await server.createProject("Steady");
    let inserts = 0;
    const firstInsertHeld = deferred();
    const firstInsertUnderWay = deferred();
    const holding = dbWatchingInserts(async () => {
      if (inserts++ === 0) {
        firstInsertUnderWay.resolve();
        await firstInsertHeld.promise;
      }
    });
    const writer = new ActivityWriter(holding, { batchSize: 100 });
    writer.record(event(target.id, 1));
    const first = writer.flush();
    await firstInsertUnderWay.promise;
    // Arrives while the first INSERT is under way: it waits for its own flush rather than a second INSERT now.
    writer.record(event(target.id, 2));
    firstInsertHeld.resolve();
    await first;
    expect(inserts).toBe(1);
    expect(writer.pending).toBe(1);
    await writer.stop();
    expect(inserts).toBe(2);
    expect(await eventsOf(target.id, "$click")).toHaveLength(2);
  });

  it("drops events past its buffer limit instead of growing without end", async () => {
    const target = await server.createProject("Full");
    const writer = new ActivityWriter(server.deps.db, { maxBuffered: 2 });
    for (let index = 0; index < 5; index++) writer.record(event(target.id, index));
    expect(writer.pending).toBe(2);
    expect(writer.dropped).toBe(3);
    await writer.stop();
  });
});

describe("session touches", () => {
  async function sessionRow(id: string) {
    const [row] = await server.deps.db.select().from(sessions).where(eq(sessions.id, id));
    return row!;
  }

  it("a refresh only reads: its session shows the touch once the activity batch is written", async () => {
    const own = await server.createProject("Touches");
    const { refreshToken } = await createSignedInUser(server, own.id);
    const [before] = await server.deps.db
      .select()
      .from(sessions)
      .where(eq(sessions.refreshTokenHash, sha256Hex(refreshToken)));
    const refreshed = await server.request("/api/v1/auth/oauth/token", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "user-agent": "Refresher/1.0",
        "x-forwarded-for": GB_IP,
      },
      body: `grant_type=refresh_token&refresh_token=${refreshToken}&client_id=${own.id}`,
    });
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(await sessionRow(before!.id)).toEqual(before);
    await server.deps.activity.flush();
    const after = await sessionRow(before!.id);
    expect(after.lastUsedAt.getTime()).toBeGreaterThanOrEqual(before!.lastUsedAt.getTime());
    expect(after).toMatchObject({ lastUsedIp: GB_IP, lastUsedUserAgent: "Refresher/1.0" });
  });

  it("keeps each session's latest touch, never moves back in time, and keeps what a touch does not know", async () => {
    const first = await createSignedInUser(server, project.id);
    const second = await createSignedInUser(server, project.id);
    const idOf = async (token: string) =>
      (
        await server.deps.db
          .select({ id: sessions.id })
          .from(sessions)
          .where(eq(sessions.refreshTokenHash, sha256Hex(token)))
      )[0]!.id;
    const [a, b] = [await idOf(first.refreshToken), await idOf(second.refreshToken)];
    const base = Date.now();
    const at = (offsetMs: number) => new Date(base + offsetMs);
    const writer = new ActivityWriter(server.deps.db);
    const touch = { projectId: project.id, ip: null, userAgent: null };
    writer.touchSession({ ...touch, sessionId: a, at: at(1000), ip: GB_IP, userAgent: "Old" });
    writer.touchSession({ ...touch, sessionId: a, at: at(2000), ip: US_IP, userAgent: "New" });
    writer.touchSession({ ...touch, sessionId: b, at: at(3000), ip: US_IP, userAgent: "B" });
    expect(writer.pending).toBe(2);
    await writer.flush();
    expect(await sessionRow(a)).toMatchObject({
      lastUsedAt: at(2000),
      lastUsedIp: US_IP,
      lastUsedUserAgent: "New",
    });

    // Late (another instance's older batch): nothing moves. Unknown address and browser: the known ones stay.
    writer.touchSession({ ...touch, sessionId: a, at: at(1500), ip: GB_IP, userAgent: "Late" });
    writer.touchSession({ ...touch, sessionId: b, at: at(4000) });
    await writer.stop();
    expect(await sessionRow(a)).toMatchObject({
      lastUsedAt: at(2000),
      lastUsedIp: US_IP,
      lastUsedUserAgent: "New",
    });
    expect(await sessionRow(b)).toMatchObject({
      lastUsedAt: at(4000),
      lastUsedIp: US_IP,
      lastUsedUserAgent: "B",
    });
  });
});

// A row lock held against the batch needs a second connection: the PostgreSQL pass opens one, as a second instance
// would. PGlite has a single connection, on which nothing can hold a lock against the batch, so there is nothing
// to test on it.
const onPostgres = Boolean(process.env.DATABASE_URL);
if (onPostgres)
  describe("session touches beside other connections (PostgreSQL)", () => {
    it("skip a session another connection holds instead of waiting for it", async () => {
      const [held, free] = [
        await createSignedInUser(server, project.id),
        await createSignedInUser(server, project.id),
      ];
      const idOf = async (token: string) =>
        (
          await server.deps.db
            .select({ id: sessions.id, lastUsedAt: sessions.lastUsedAt })
            .from(sessions)
            .where(eq(sessions.refreshTokenHash, sha256Hex(token)))
        )[0]!;
      const [heldSession, freeSession] = [await idOf(held.refreshToken), await idOf(free.refreshToken)];
      const other = await openSameTestDatabase(server.deps.db);
      const later = new Date(Date.now() + 60_000);
      try {
        const released = deferred();
        const isLocked = deferred();
        // Another connection holds one session (as a sign-out deleting it would) until the batch is done.
        const holder = other.db.transaction(async (tx) => {
          await tx.execute(
            sql`select 1 from ${sessions} where ${sessions.id} = ${heldSession.id} for update`,
          );
          isLocked.resolve();
          await released.promise;
        });
        await isLocked.promise;
        const writer = new ActivityWriter(server.deps.db);
        for (const session of [heldSession, freeSession]) {
          writer.touchSession({
            projectId: project.id,
            sessionId: session.id,
            at: later,
            ip: US_IP,
            userAgent: null,
          });
        }
        await writer.stop();
        released.resolve();
        await holder;
        expect((await idOf(held.refreshToken)).lastUsedAt).toEqual(heldSession.lastUsedAt);
        expect((await idOf(free.refreshToken)).lastUsedAt).toEqual(later);
      } finally {
        await other.close();
      }
    });
  });

describe("activity recording", () => {
  it("records a $token-refresh per refresh, from both refresh routes, with the caller's country", async () => {
    const { user, refreshToken } = await createSignedInUser(server, project.id, { displayName: "Ada" });
    const grant = await server.request("/api/v1/auth/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": GB_IP },
      body: `grant_type=refresh_token&refresh_token=${refreshToken}&client_id=${project.id}&client_secret=${project.keys.publishableClientKey}`,
    });
    expect(grant.status, grant.text).toBe(200);
    const current = await server.request("/api/v1/auth/sessions/current/refresh", {
      method: "POST",
      headers: project.headers("client", { "x-stack-refresh-token": refreshToken, "x-forwarded-for": US_IP }),
    });
    expect(current.status, current.text).toBe(200);
    // Nothing is written on the request's path...
    expect(await eventsOf(project.id, "$token-refresh")).toHaveLength(0);
    await server.deps.activity.flush();
    // ...and both refreshes are there once the batch is.
    const rows = (await eventsOf(project.id, "$token-refresh")).sort(
      (a, b) => a.occurredAt.getTime() - b.occurredAt.getTime(),
    );
    expect(rows.map((row) => row.countryCode)).toEqual(["GB", "US"]);
    const sessionId = (rows[0]!.data as { refresh_token_id: string }).refresh_token_id;
    expect(rows[0]).toMatchObject({
      userId: user.id,
      data: { refresh_token_id: sessionId, is_anonymous: false, ip_info: { ip: GB_IP, country_code: "GB" } },
    });
    expect(rows[0]!.dispatchedAt).not.toBeNull();
  });

  it("records a $sign-in when a sign-in completes", async () => {
    await project.configure({ "auth.password.allowSignIn": true });
    const signUp = await server.request("/api/v1/auth/password/sign-up", {
      method: "POST",
      headers: project.headers("client", { "x-forwarded-for": US_IP }),
      body: { email: "signin-event@example.com", password: "correct horse battery" },
    });
    expect(signUp.status, signUp.text).toBe(200);
    await server.deps.activity.flush();
    const rows = await eventsOf(project.id, "$sign-in");
    expect(rows.find((row) => row.userId === signUp.body.user_id)).toMatchObject({
      countryCode: "US",
      data: { is_new_user: true, is_anonymous: false, ip_info: { country_code: "US" } },
    });
  });

  it("locates a session's last address in the session list", async () => {
    const { user, refreshToken } = await createSignedInUser(server, project.id);
    await server.request("/api/v1/auth/sessions/current/refresh", {
      method: "POST",
      headers: project.headers("client", { "x-stack-refresh-token": refreshToken, "x-forwarded-for": GB_IP }),
    });
    await server.deps.activity.flush();
    const list = await server.request(`/api/v1/auth/sessions?user_id=${user.id}`, {
      headers: project.headers("server"),
    });
    expect(list.body.items[0].last_used_at_end_user_ip_info).toEqual({
      ip: GB_IP,
      countryCode: "GB",
      regionCode: null,
      cityName: null,
      latitude: null,
      longitude: null,
      tzIdentifier: null,
    });
  });
});
