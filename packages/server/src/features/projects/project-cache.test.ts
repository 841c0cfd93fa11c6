/**
 * The per-process project cache: what it keeps, when it lets go, and that a change made through one instance reaches
 * another instance on the same PostgreSQL through NOTIFY alone (on PGlite, one engine per process, the same instance
 * sees it at once).
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootGatehouse, type Gatehouse } from "../../bootstrap.ts";
import { createTestServer, type TestServer, testApiOf, testEnv } from "../../testing/harness.ts";
import { openSameTestDatabase } from "../../testing/test-database.ts";
import { createKeySet, updateKeySet } from "../project-keys/service.ts";
import { type CachedProject, ProjectCache } from "./project-cache.ts";
import { projects } from "./schema.ts";
import { updateProject } from "./service.ts";

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

/** Counts the project reads a cache makes, by counting reads of the projects table through a wrapped db. */
function countingCache(now: () => number) {
  let reads = 0;
  const db = new Proxy(server.deps.db, {
    get(target, property, receiver) {
      if (property === "select") reads++;
      return Reflect.get(target, property, receiver);
    },
  });
  const cache = new ProjectCache({ db, env: server.deps.env }, { now });
  return { cache, reads: () => reads };
}

describe("ProjectCache", () => {
  it("answers from memory until the TTL, then reads again", async () => {
    const project = await server.createProject("Cached");
    let clock = 1_000_000;
    const { cache, reads } = countingCache(() => clock);
    const first = await cache.get(project.id);
    expect(first?.project.displayName).toBe("Cached");
    expect(first?.keySets).toHaveLength(1);
    const afterFirst = reads();
    expect(await cache.get(project.id)).toBe(first);
    expect(reads()).toBe(afterFirst);
    clock += 30_001;
    const reread = await cache.get(project.id);
    expect(reads()).toBeGreaterThan(afterFirst);
    expect(reread).not.toBe(first);
    expect(reread).toEqual(first);
  });

  it("shares one read between requests that ask at once", async () => {
    const project = await server.createProject("Asked at once");
    const { cache, reads } = countingCache(Date.now);
    const [a, b, c] = await Promise.all([
      cache.get(project.id),
      cache.get(project.id),
      cache.get(project.id),
    ]);
    expect(a).toBe(b);
    expect(b).toBe(c);
    // One project read, plus the config and key-set reads of that one load.
    expect(reads()).toBeLessThanOrEqual(3);
  });

  it("never caches a project that does not exist, so creating it later is seen", async () => {
    const { cache } = countingCache(Date.now);
    expect(await cache.get("no-such-project")).toBeNull();
    expect(await cache.get("bad\u0000id")).toBeNull();
  });

  it("drops a project when it is invalidated, and does not keep a read that a change overtook", async () => {
    const project = await server.createProject("Before");
    const { cache } = countingCache(Date.now);
    expect((await cache.get(project.id))?.project.displayName).toBe("Before");
    await server.deps.db.update(projects).set({ displayName: "After" }).where(sql`id = ${project.id}`);
    expect((await cache.get(project.id))?.project.displayName).toBe("Before");
    cache.invalidate(project.id);
    expect((await cache.get(project.id))?.project.displayName).toBe("After");

    // A read in flight when the change arrives may have seen the old rows: it answers its waiters, then is dropped.
    const inFlight = cache.get(project.id);
    cache.invalidate(project.id);
    await server.deps.db.update(projects).set({ displayName: "Latest" }).where(sql`id = ${project.id}`);
    await inFlight;
    expect((await cache.get(project.id))?.project.displayName).toBe("Latest");
  });

  it("keeps no read made while a change announced here may not be committed yet", async () => {
    const project = await server.createProject("Announced");
    let clock = Date.now();
    const { cache } = countingCache(() => clock);
    await cache.get(project.id);
    // The writer's transaction announced the change; a request reads before the commit and sees the old name.
    cache.invalidate(project.id, { announcedInTransaction: true });
    expect((await cache.get(project.id))?.project.displayName).toBe("Announced");
    // The commit lands; the notification is still on its way. The next read must not answer from the old one.
    await server.deps.db.update(projects).set({ displayName: "Committed" }).where(sql`id = ${project.id}`);
    expect((await cache.get(project.id))?.project.displayName).toBe("Committed");
    // Once the window has passed, reads are kept again.
    clock += 6_000;
    await cache.get(project.id);
    await server.deps.db.update(projects).set({ displayName: "Unannounced" }).where(sql`id = ${project.id}`);
    expect((await cache.get(project.id))?.project.displayName).toBe("Committed");
  });

  it("does not hand a read begun before the commit to a request made after it", async () => {
    const project = await server.createProject("Before commit");
    const { cache } = countingCache(Date.now);
    cache.invalidate(project.id, { announcedInTransaction: true });
    // A request reads during the writer's transaction; the commit lands while that read is still under way.
    const begun = cache.get(project.id);
    await server.deps.db.update(projects).set({ displayName: "After commit" }).where(sql`id = ${project.id}`);
    const after = cache.get(project.id);
    expect((await after)?.project.displayName).toBe("After commit");
    await begun;
  });

  it("drops every read begun before the commit when its notification arrives, not only the newest", async () => {
    // Reads held at will: each request's read answers only when the test says, with the rows it says.
    const held: { settle: (value: CachedProject) => void }[] = [];
    const read = () =>
      new Promise<CachedProject | null>((settle) => {
        held.push({ settle });
      });
    const cache = new ProjectCache({ db: server.deps.db, env: server.deps.env }, { read });
    const rows = (name: string) => ({ project: { displayName: name } }) as unknown as CachedProject;

    cache.invalidate("p", { announcedInTransaction: true });
    // Two requests during the writer's transaction: each reads for itself, and both see the old rows.
    const first = cache.get("p");
    const second = cache.get("p");
    expect(held).toHaveLength(2);
    cache.invalidate("p", { committed: true });
    held[1]!.settle(rows("old"));
    held[0]!.settle(rows("old"));
    await Promise.all([first, second]);

    // Neither was kept: the next request reads the committed rows.
    const third = cache.get("p");
    expect(held).toHaveLength(3);
    held[2]!.settle(rows("new"));
    expect((await third)?.project.displayName).toBe("new");
    expect(await cache.get("p")).toBe(await third);
    expect(held).toHaveLength(3);
  });

  it("keeps the window of a change announced here when notifications were missed", async () => {
    const project = await server.createProject("Gap");
    const { cache, reads } = countingCache(Date.now);
    cache.invalidate(project.id, { announcedInTransaction: true });
    // The listening connection dropped: whatever it missed, this change's notification may be among it.
    cache.clear();
    await cache.get(project.id);
    const afterFirst = reads();
    await cache.get(project.id);
    expect(reads()).toBeGreaterThan(afterFirst);
  });

  it("keeps reads again as soon as the commit's notification arrives, not only after the window", async () => {
    const project = await server.createProject("Notified");
    const { cache, reads } = countingCache(Date.now);
    // Announced here and not committed yet: every read goes to the database.
    cache.invalidate(project.id, { announcedInTransaction: true });
    await cache.get(project.id);
    const afterFirst = reads();
    await cache.get(project.id);
    expect(reads()).toBeGreaterThan(afterFirst);
    // The commit's notification: from now on a read is kept and the next request is served from it.
    cache.invalidate(project.id, { committed: true });
    await cache.get(project.id);
    const kept = reads();
    expect((await cache.get(project.id))?.project.displayName).toBe("Notified");
    expect(reads()).toBe(kept);
  });

  it("freezes what it shares, so a handler cannot change the config for every later request", async () => {
    const project = await server.createProject("Frozen");
    const { cache } = countingCache(Date.now);
    const cached = (await cache.get(project.id))!;
    expect(() => {
      (cached.config.project as { requirePublishableClientKey: boolean }).requirePublishableClientKey = true;
    }).toThrow(TypeError);
  });
});

describe("requests through the cache", () => {
  it("see a config change, a renamed project and a revoked key at once", async () => {
    const project = await server.createProject("Live");
    const client = () => server.request("/api/v1/projects/current", { headers: project.headers("client") });
    expect((await client()).status).toBe(200);

    await project.configure({ "project.requirePublishableClientKey": true }, "project");
    const noKey = await server.request("/api/v1/projects/current", {
      headers: { "x-stack-project-id": project.id, "x-stack-access-type": "client" },
    });
    expect(noKey.body.code).toBe("PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT");

    await updateProject(server.deps, project.id, { display_name: "Renamed" });
    expect((await client()).body.display_name).toBe("Renamed");

    const { row, keys } = await createKeySet(server.deps.db, project.id, {
      description: "second",
      expiresAt: null,
      hasPublishableClientKey: true,
      hasSecretServerKey: false,
      hasSuperSecretAdminKey: false,
    });
    const withSecond = {
      ...project.headers("client"),
      "x-stack-publishable-client-key": keys.publishableClientKey!,
    };
    expect((await server.request("/api/v1/projects/current", { headers: withSecond })).status).toBe(200);
    await updateKeySet(server.deps.db, project.id, row.id, { revoke: true });
    const revoked = await server.request("/api/v1/projects/current", { headers: withSecond });
    expect(revoked.body.code).toBe("INVALID_PUBLISHABLE_CLIENT_KEY");
  });
});

describe("a second instance on the same database", () => {
  let second: Gatehouse | null = null;
  beforeAll(async () => {
    if (!process.env.DATABASE_URL) return;
    const handle = await openSameTestDatabase(server.deps.db);
    // It hears changes only through the database, as another process would.
    second = await bootGatehouse(testEnv(), handle, {
      emailWorker: false,
      webhookWorker: false,
      hearsChangesInProcess: false,
    });
  });
  afterAll(() => second?.close());

  it("uses a change made through the first as soon as the notification arrives", async () => {
    // On PGlite there is no second process to tell: the one instance is the whole story, tested above.
    const other = second ? testApiOf(second) : server;
    const project = await server.createProject("Two instances");
    const current = (headers: Record<string, string>) =>
      other.request("/api/v1/projects/current", { headers }).then((r) => r.body);
    expect((await current(project.headers("client"))).display_name).toBe("Two instances");

    await server.request("/api/v1/internal/projects/current", {
      method: "PATCH",
      headers: project.headers("admin"),
      body: { display_name: "Renamed through the first" },
    });
    // The TTL is 30 s; well within it, only the notification can have told the second instance.
    await expect
      .poll(async () => (await current(project.headers("client"))).display_name, {
        timeout: 5_000,
        interval: 20,
      })
      .toBe("Renamed through the first");

    await project.configure({ "project.requirePublishableClientKey": true }, "project");
    await expect
      .poll(
        async () =>
          (await current({ "x-stack-project-id": project.id, "x-stack-access-type": "client" })).code,
        {
          timeout: 5_000,
          interval: 20,
        },
      )
      .toBe("PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT");
  });
});
