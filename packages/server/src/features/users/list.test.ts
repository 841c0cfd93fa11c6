import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUuid } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { oauthAccounts } from "../oauth/schema.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { users } from "./schema.ts";
import { createUser, type NewUser } from "./service.ts";
import { correctVerifiedEmailFlags } from "./store.ts";
import { insertTeam, SERVER_VIEW_KEYS } from "./test-support.ts";

let server: TestServer;

beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

const errorCode = (response: { headers: Headers }) => response.headers.get("x-stack-known-error");

async function list(project: TestProject, params: Record<string, string> = {}) {
  const query = new URLSearchParams(params).toString();
  return server.request(`/api/v1/users${query ? `?${query}` : ""}`, { headers: project.headers("server") });
}

/** Every page, following next_cursor, as ids. */
async function allPages(project: TestProject, params: Record<string, string>) {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const response = await list(project, { ...params, ...(cursor ? { cursor } : {}) });
    expect(response.status, response.text).toBe(200);
    expect(response.body.is_paginated).toBe(true);
    ids.push(...response.body.items.map((u: { id: string }) => u.id));
    cursor = response.body.pagination.next_cursor;
    if (cursor === null) return ids;
  }
  throw new Error("pagination did not end");
}

async function makeUser(projectId: string, input: NewUser = {}, signedUpAt?: Date) {
  const config = await getRenderedConfig(server.deps, projectId);
  const user = await createUser(server.deps.db, projectId, config, input, server.deps.hooks);
  if (signedUpAt) await server.deps.db.update(users).set({ signedUpAt }).where(eq(users.id, user.id));
  return user;
}

/** (signed_up_at, id) order, as PostgreSQL sorts it: lower-case UUID strings compare like the UUID bytes. */
function byPosition(rows: { id: string; signedUpAt: Date }[]) {
  return [...rows].sort((a, b) => a.signedUpAt.getTime() - b.signedUpAt.getTime() || (a.id < b.id ? -1 : 1));
}

describe("GET /users pagination", () => {
  let project: TestProject;
  let expected: string[];

  beforeAll(async () => {
    project = await server.createProject("Paging");
    // Three groups of users that signed up at the very same instant, so that only the id breaks the ties.
    const instants = [
      new Date("2024-01-01T00:00:00Z"),
      new Date("2024-01-02T00:00:00Z"),
      new Date("2024-01-03T00:00:00Z"),
    ];
    const created = [];
    for (let i = 0; i < 11; i++) {
      const signedUpAt = instants[i % 3]!;
      const user = await makeUser(project.id, { displayName: `User ${i}` }, signedUpAt);
      created.push({ id: user.id, signedUpAt });
    }
    expected = byPosition(created).map((u) => u.id);
  });

  it("pages forwards through users with equal sign-up times, each user once, in order", async () => {
    for (const limit of ["1", "2", "3", "4", "10", "11", "200"]) {
      expect(await allPages(project, { limit }), `limit ${limit}`).toEqual(expected);
    }
  });

  it("pages backwards with desc=true", async () => {
    const reversed = [...expected].reverse();
    for (const limit of ["1", "3", "5"]) {
      expect(await allPages(project, { limit, desc: "true", order_by: "signed_up_at" })).toEqual(reversed);
    }
  });

  it("treats the cursor as the first item of the next page, and gives no cursor after the last page", async () => {
    const first = await list(project, { limit: "4" });
    expect(first.body.items).toHaveLength(4);
    expect(first.body.pagination.next_cursor).toBe(expected[4]);
    const second = await list(project, { limit: "4", cursor: expected[4]! });
    expect(second.body.items[0].id).toBe(expected[4]);
    const last = await list(project, { limit: "4", cursor: expected[8]! });
    expect(last.body.items.map((u: { id: string }) => u.id)).toEqual(expected.slice(8));
    expect(last.body.pagination.next_cursor).toBeNull();
    expect(Object.keys(last.body.items[0]).sort()).toEqual(SERVER_VIEW_KEYS);
  });

  it("defaults to 100 users per page", async () => {
    const big = await server.createProject("Default page size");
    await server.deps.db.insert(users).values(
      Array.from({ length: 105 }, (_, i) => ({
        projectId: big.id,
        id: randomUuid(),
        signedUpAt: new Date(Date.UTC(2024, 0, 1, 0, 0, i)),
      })),
    );
    const page = await list(big);
    expect(page.body.items).toHaveLength(100);
    expect(page.body.pagination.next_cursor).not.toBeNull();
    expect((await allPages(big, {})).length).toBe(105);
  });

  it("pages through thousands of users", async () => {
    const large = await server.createProject("Thousands");
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      projectId: large.id,
      id: randomUuid(),
      // Every ten users share a sign-up time.
      signedUpAt: new Date(Date.UTC(2023, 0, 1) + Math.floor(i / 10) * 1000),
    }));
    for (let i = 0; i < rows.length; i += 500)
      await server.deps.db.insert(users).values(rows.slice(i, i + 500));
    const ids = await allPages(large, { limit: "200" });
    expect(ids).toEqual(byPosition(rows).map((r) => r.id));
  });

  it("orders by last activity when asked", async () => {
    const active = await server.createProject("Activity");
    const a = await makeUser(active.id);
    const b = await makeUser(active.id);
    await server.deps.db
      .update(users)
      .set({ lastActiveAt: new Date("2030-01-01") })
      .where(eq(users.id, a.id));
    await server.deps.db
      .update(users)
      .set({ lastActiveAt: new Date("2020-01-01") })
      .where(eq(users.id, b.id));
    const response = await list(active, { order_by: "last_active_at", desc: "true", limit: "1" });
    expect(response.body.items[0].id).toBe(a.id);
    expect(response.body.pagination.next_cursor).toBe(b.id);
  });

  it.each([
    ["limit 0", { limit: "0" }],
    ["limit 201", { limit: "201" }],
    ["a non-numeric limit", { limit: "ten" }],
    ["a fractional limit", { limit: "1.5" }],
    ["a cursor that is not a UUID", { cursor: "abc" }],
    ["an unknown order", { order_by: "display_name" }],
    ["desc=yes", { desc: "yes" }],
    ["an unknown parameter", { page: "2" }],
    ["only_anonymous without include_anonymous", { only_anonymous: "true" }],
    ["a team id that is not a UUID", { team_id: "team" }],
  ])("refuses %s with SCHEMA_ERROR", async (_name, params) => {
    const response = await list(project, params);
    expect(response.status).toBe(400);
    expect(errorCode(response)).toBe("SCHEMA_ERROR");
  });

  it("refuses an unknown cursor, and a cursor from another project, with a clear 400", async () => {
    const elsewhere = await server.createProject("Elsewhere");
    const foreign = await makeUser(elsewhere.id);
    for (const cursor of [randomUuid(), foreign.id]) {
      const response = await list(project, { cursor });
      expect(response.status).toBe(400);
      expect(response.text).toContain("Unknown cursor");
    }
  });

  it("is not for clients", async () => {
    const response = await server.request("/api/v1/users", { headers: project.headers("client") });
    expect(errorCode(response)).toBe("INSUFFICIENT_ACCESS_TYPE");
  });
});

describe("GET /users filters", () => {
  let project: TestProject;
  let regular: string;
  let anonymous: string;
  let restricted: string;

  beforeAll(async () => {
    project = await server.createProject("Filters");
    regular = (
      await makeUser(project.id, { displayName: "Grace Hopper", primaryEmail: "grace@navy.example" })
    ).id;
    anonymous = (await makeUser(project.id, { isAnonymous: true })).id;
    restricted = (
      await makeUser(project.id, {
        displayName: "Mallory",
        primaryEmail: "mallory@evil.example",
        restrictedByAdmin: true,
        restrictedByAdminReason: "abuse",
      })
    ).id;
  });

  const ids = async (target: TestProject, params: Record<string, string> = {}) => {
    const response = await list(target, params);
    expect(response.status, response.text).toBe(200);
    return response.body.items.map((u: { id: string }) => u.id).sort();
  };

  it("lists only regular users by default", async () => {
    expect(await ids(project)).toEqual([regular]);
  });

  it("adds restricted users with include_restricted, and anonymous (and restricted) ones with include_anonymous", async () => {
    expect(await ids(project, { include_restricted: "true" })).toEqual([regular, restricted].sort());
    expect(await ids(project, { include_anonymous: "true" })).toEqual(
      [regular, anonymous, restricted].sort(),
    );
    expect(await ids(project, { include_anonymous: "true", only_anonymous: "true" })).toEqual([anonymous]);
    expect(await ids(project, { include_anonymous: "false", include_restricted: "false" })).toEqual([
      regular,
    ]);
  });

  it("counts an unverified email as restricted when the project requires verification", async () => {
    const strict = await server.createProject("Strict filters");
    await strict.configure({ "onboarding.requireEmailVerification": true });
    const verified = (
      await makeUser(strict.id, { primaryEmail: "v@example.com", primaryEmailVerified: true })
    ).id;
    const unverified = (await makeUser(strict.id, { primaryEmail: "u@example.com" })).id;
    const noEmail = (await makeUser(strict.id)).id;
    expect(await ids(strict)).toEqual([verified]);
    expect(await ids(strict, { include_restricted: "true" })).toEqual([verified, unverified, noEmail].sort());
  });

  it("searches display names and primary emails case-insensitively, and ids exactly", async () => {
    const all = { include_anonymous: "true" };
    expect(await ids(project, { ...all, query: "HOPPER" })).toEqual([regular]);
    expect(await ids(project, { ...all, query: "navy.EX" })).toEqual([regular]);
    expect(await ids(project, { ...all, query: "mallory@" })).toEqual([restricted]);
    expect(await ids(project, { ...all, query: anonymous.toUpperCase() })).toEqual([anonymous]);
    expect(await ids(project, { ...all, query: anonymous.slice(0, 8) })).toEqual([]);
    // LIKE wildcards in the search text are literal.
    expect(await ids(project, { ...all, query: "%" })).toEqual([]);
    expect(await ids(project, { ...all, query: "_" })).toEqual([]);
    expect(await ids(project, { ...all, query: "  " })).toEqual([regular, anonymous, restricted].sort());
  });

  it("lists the members of a team", async () => {
    const other = await makeUser(project.id, { displayName: "Not in the team" });
    const teamId = await insertTeam(server, project.id, [regular, anonymous]);
    expect(await ids(project, { team_id: teamId })).toEqual([regular]);
    expect(await ids(project, { team_id: teamId, include_anonymous: "true" })).toEqual(
      [regular, anonymous].sort(),
    );
    expect(await ids(project, { team_id: randomUuid() })).toEqual([]);
    expect(await ids(project)).toContain(other.id);
  });

  it("never lists users of another project", async () => {
    const elsewhere = await server.createProject("Isolated");
    const { user } = await createSignedInUser(server, elsewhere.id, { displayName: "Grace elsewhere" });
    expect(await ids(project, { include_anonymous: "true", query: "grace" })).toEqual([regular]);
    expect(await ids(elsewhere, { include_anonymous: "true" })).toEqual([user.id]);
  });
});

describe("GET /users primary_email_verified", () => {
  it("follows the primary channel as it changes, and the repair puts a stale flag right", async () => {
    const db = server.deps.db;
    const project = await server.createProject("Primary channel changes");
    const verified = (
      await makeUser(project.id, { primaryEmail: "v@example.com", primaryEmailVerified: true })
    ).id;
    const ids = async (params: Record<string, string>) => {
      const response = await list(project, params);
      expect(response.status, response.text).toBe(200);
      return response.body.items.map((u: { id: string }) => u.id).sort();
    };
    const user = (await makeUser(project.id, { primaryEmail: "moving@example.com" })).id;
    const channelsOf = and(eq(contactChannels.projectId, project.id), eq(contactChannels.userId, user));
    const listedAsVerified = async () => {
      const [yes, no] = await Promise.all([
        ids({ primary_email_verified: "true" }),
        ids({ primary_email_verified: "false" }),
      ]);
      expect(yes.includes(user)).not.toBe(no.includes(user));
      return yes.includes(user);
    };
    expect(await listedAsVerified()).toBe(false);
    // A verified email that is not the primary one does not make the primary verified.
    const second = randomUuid();
    await db.insert(contactChannels).values({
      projectId: project.id,
      id: second,
      userId: user,
      value: "second@example.com",
      isVerified: true,
    });
    expect(await listedAsVerified()).toBe(false);
    // The verified one becomes the primary.
    await db.update(contactChannels).set({ isPrimary: false }).where(channelsOf);
    await db.update(contactChannels).set({ isPrimary: true }).where(eq(contactChannels.id, second));
    expect(await listedAsVerified()).toBe(true);
    await db.update(contactChannels).set({ isVerified: false }).where(eq(contactChannels.id, second));
    expect(await listedAsVerified()).toBe(false);
    await db.update(contactChannels).set({ isVerified: true }).where(eq(contactChannels.id, second));
    expect(await listedAsVerified()).toBe(true);
    await db.delete(contactChannels).where(eq(contactChannels.id, second));
    expect(await listedAsVerified()).toBe(false);

    // The flag turned on behind the triggers' back, then set right again from the channels.
    await db.update(users).set({ hasVerifiedPrimaryEmail: true }).where(eq(users.id, user));
    expect(await listedAsVerified()).toBe(true);
    await correctVerifiedEmailFlags(db, project.id);
    expect(await listedAsVerified()).toBe(false);
    expect(await ids({ primary_email_verified: "true" })).toEqual([verified]);
  });
});

describe("GET /users dashboard filters (Gatehouse extensions)", () => {
  let project: TestProject;
  let verified: string;
  let unverified: string;
  let restricted: string;
  let mfa: string;
  let otp: string;
  let passkey: string;
  let oauth: string;

  beforeAll(async () => {
    project = await server.createProject("Dashboard filters");
    verified = (
      await makeUser(project.id, {
        primaryEmail: "v@example.com",
        primaryEmailVerified: true,
        passwordHash: "$2a$10$abcdefghijklmnopqrstuuJ3X4kA6YtPq1cL8mS9y0hR2bV7wZ5nK",
      })
    ).id;
    unverified = (await makeUser(project.id, { primaryEmail: "u@example.com" })).id;
    restricted = (
      await makeUser(project.id, {
        primaryEmail: "r@example.com",
        primaryEmailVerified: true,
        restrictedByAdmin: true,
      })
    ).id;
    mfa = (await makeUser(project.id, { totpSecretEncrypted: "sealed" })).id;
    otp = (await makeUser(project.id, { otpAuthEnabled: true })).id;
    passkey = (await makeUser(project.id, { passkeyAuthEnabled: true })).id;
    oauth = (await makeUser(project.id, { displayName: "Octocat" })).id;
    await server.deps.db.insert(oauthAccounts).values({
      projectId: project.id,
      id: randomUuid(),
      userId: oauth,
      providerConfigId: "github",
      providerAccountId: "42",
    });
    // The same kinds of users in another project never show up.
    const other = await server.createProject("Dashboard filters elsewhere");
    await makeUser(other.id, {
      primaryEmail: "v@example.com",
      primaryEmailVerified: true,
      otpAuthEnabled: true,
    });
  });

  const ids = async (params: Record<string, string>) => {
    const response = await list(project, { include_restricted: "true", ...params });
    expect(response.status, response.text).toBe(200);
    return response.body.items.map((u: { id: string }) => u.id).sort();
  };

  it("filters by a verified primary email", async () => {
    expect(await ids({ primary_email_verified: "true" })).toEqual([verified, restricted].sort());
    expect(await ids({ primary_email_verified: "false" })).toEqual(
      [unverified, mfa, otp, passkey, oauth].sort(),
    );
  });

  it("filters by restriction by an admin, which needs restricted users included", async () => {
    expect(await ids({ restricted_by_admin: "true" })).toEqual([restricted]);
    expect(await ids({ restricted_by_admin: "false" })).not.toContain(restricted);
    const refused = await list(project, { restricted_by_admin: "true" });
    expect(refused.status).toBe(400);
    expect(errorCode(refused)).toBe("SCHEMA_ERROR");
    expect(refused.text).toContain("restricted_by_admin");
  });

  it("filters by MFA and by sign-in method", async () => {
    expect(await ids({ has_mfa: "true" })).toEqual([mfa]);
    expect(await ids({ has_mfa: "false" })).not.toContain(mfa);
    expect(await ids({ auth_method: "password" })).toEqual([verified]);
    expect(await ids({ auth_method: "otp" })).toEqual([otp]);
    expect(await ids({ auth_method: "passkey" })).toEqual([passkey]);
    expect(await ids({ auth_method: "oauth" })).toEqual([oauth]);
  });

  it("gives the total of the filter on every page with include_total, and nothing more without it", async () => {
    const first = await list(project, { include_restricted: "true", include_total: "true", limit: "2" });
    expect(first.status, first.text).toBe(200);
    expect(first.body.total_count).toBe(7);
    expect(first.body.items).toHaveLength(2);
    const second = await list(project, {
      include_restricted: "true",
      include_total: "true",
      limit: "2",
      cursor: first.body.pagination.next_cursor,
    });
    expect(second.body.total_count).toBe(7);
    const filtered = await list(project, { include_total: "true", primary_email_verified: "true" });
    expect(filtered.body.total_count).toBe(1);
    expect((await list(project)).body).not.toHaveProperty("total_count");
  });

  it("refuses bad filter values with a 400", async () => {
    for (const params of <Record<string, string>[]>[
      { auth_method: "carrier-pigeon" },
      { has_mfa: "yes" },
      { primary_email_verified: "1" },
      { include_total: "" },
      { order_by: "display_name" },
    ]) {
      const response = await list(project, params);
      expect(response.status, JSON.stringify(params)).toBe(400);
      expect(errorCode(response)).toBe("SCHEMA_ERROR");
    }
  });
});

describe("GET /users search", () => {
  let project: TestProject;
  let elsewhere: TestProject;
  const user: Record<string, string> = {};

  beforeAll(async () => {
    project = await server.createProject("Search");
    elsewhere = await server.createProject("Search elsewhere");
    const make = async (key: string, input: NewUser, day: number) => {
      user[key] = (await makeUser(project.id, input, new Date(Date.UTC(2024, 0, day)))).id;
    };
    await make("ada", { displayName: "Ada Lovelace", primaryEmail: "ada@analytical.example" }, 1);
    await make("alice", { displayName: "Alice", primaryEmail: "alice@wonder.example" }, 2);
    await make("malice", { displayName: "M", primaryEmail: "malice@wonder.example" }, 3);
    await make("aliceOrg", { displayName: "A. Org", primaryEmail: "alice@wonder.example.org" }, 4);
    await make("percent", { displayName: "Rate 100% sure", primaryEmail: "first_last@under.example" }, 5);
    await make("decoy", { displayName: "Rate 1000 sure", primaryEmail: "firstxlast@under.example" }, 6);
    await make("slash", { displayName: "back\\slash" }, 7);
    // The same names and emails in another project, which a search must never reach.
    for (const input of [
      { displayName: "Ada Lovelace", primaryEmail: "ada@analytical.example" },
      { displayName: "Alice", primaryEmail: "alice@wonder.example" },
      { displayName: "Rate 100% sure" },
    ])
      await makeUser(elsewhere.id, input);
    // Only primary emails are searched: a second address of Ada's matches nothing.
    await server.deps.db.insert(contactChannels).values({
      projectId: project.id,
      id: randomUuid(),
      userId: user.ada!,
      value: "countess@secondary.example",
      isPrimary: false,
    });
  });

  const search = async (query: string, params: Record<string, string> = {}) => {
    const response = await list(project, { query, ...params });
    expect(response.status, response.text).toBe(200);
    return response.body.items.map((u: { id: string }) => u.id);
  };
  const idsOf = (...keys: string[]) => keys.map((key) => user[key]!);

  it("finds a substring of a display name, whatever its case", async () => {
    expect(await search("LOVE")).toEqual(idsOf("ada"));
    expect(await search("ada lovelace")).toEqual(idsOf("ada"));
    expect(await search("RATE 100")).toEqual(idsOf("percent", "decoy"));
  });

  it("finds a substring of a primary email, whatever its case, and never a secondary one", async () => {
    expect(await search("ANALYTICAL.ex")).toEqual(idsOf("ada"));
    expect(await search("lice@")).toEqual(idsOf("alice", "malice", "aliceOrg"));
    expect(await search("@Wonder.example.")).toEqual(idsOf("aliceOrg"));
    expect(await search("countess")).toEqual([]);
  });

  it("finds a whole email as a substring too: the exact address and the longer ones that contain it", async () => {
    expect(await search("ada@analytical.example")).toEqual(idsOf("ada"));
    expect(await search("Alice@Wonder.Example")).toEqual(idsOf("alice", "malice", "aliceOrg"));
    expect(await search("malice@wonder.example")).toEqual(idsOf("malice"));
    expect(await search("alice@wonder.example.org")).toEqual(idsOf("aliceOrg"));
    // The part before the "@" matches three emails; the whole text none.
    expect(await search("alice@other.example")).toEqual([]);
    expect(await search("ice@wonder.example.o")).toEqual(idsOf("aliceOrg"));
  });

  it("takes %, _ and \\ literally", async () => {
    expect(await search("100%")).toEqual(idsOf("percent"));
    expect(await search("% sure")).toEqual(idsOf("percent"));
    expect(await search("first_last")).toEqual(idsOf("percent"));
    expect(await search("t_l")).toEqual(idsOf("percent"));
    expect(await search("first_last@under")).toEqual(idsOf("percent"));
    expect(await search("back\\slash")).toEqual(idsOf("slash"));
    expect(await search("back\\")).toEqual(idsOf("slash"));
    expect(await search("%%")).toEqual([]);
    expect(await search("___")).toEqual([]);
  });

  it("never matches another project's users", async () => {
    for (const query of ["ada", "ada@analytical.example", "alice@wonder.example", "100%"]) {
      const ids = await search(query);
      expect(ids.length, query).toBeGreaterThan(0);
      for (const id of ids) expect(Object.values(user), query).toContain(id);
    }
    const theirs = await list(elsewhere, { query: "ada@analytical.example" });
    expect(theirs.body.items).toHaveLength(1);
    expect(theirs.body.items[0].id).not.toBe(user.ada);
  });

  it("pages through the matches in order, in both directions, with their total", async () => {
    const matches = idsOf("alice", "malice", "aliceOrg");
    expect(await allPages(project, { query: "lice", limit: "1" })).toEqual(matches);
    expect(await allPages(project, { query: "lice", limit: "2", desc: "true" })).toEqual(
      [...matches].reverse(),
    );
    // A user matching by name and by email is listed once.
    expect(await allPages(project, { query: "alice", limit: "1" })).toEqual(matches);
    const counted = await list(project, { query: "lice", include_total: "true", limit: "1" });
    expect(counted.body.total_count).toBe(3);
    expect(counted.body.items.map((u: { id: string }) => u.id)).toEqual(idsOf("alice"));
    expect((await list(project, { query: "zzqx", include_total: "true" })).body.total_count).toBe(0);
  });

  it("keeps the other filters on a search", async () => {
    await server.deps.db.update(users).set({ restrictedByAdmin: true }).where(eq(users.id, user.malice!));
    try {
      expect(await search("lice@")).toEqual(idsOf("alice", "aliceOrg"));
      expect(await search("lice@", { include_restricted: "true" })).toEqual(
        idsOf("alice", "malice", "aliceOrg"),
      );
    } finally {
      await server.deps.db.update(users).set({ restrictedByAdmin: false }).where(eq(users.id, user.malice!));
    }
  });

  it("has trigram indexes led by the project for names and primary emails, and plans searches on them", async () => {
    const { rows } = (await server.deps.db.execute(
      sql`select indexname, indexdef from pg_indexes where indexname in ('users_project_display_name_trgm_idx', 'contact_channels_project_primary_value_trgm_idx') order by indexname`,
    )) as unknown as { rows: { indexname: string; indexdef: string }[] };
    expect(rows.map((row) => row.indexname)).toEqual([
      "contact_channels_project_primary_value_trgm_idx",
      "users_project_display_name_trgm_idx",
    ]);
    for (const row of rows) expect(row.indexdef).toMatch(/USING gin \(project_id, \w+ gin_trgm_ops\)/);
    expect(rows[0]!.indexdef).toContain("WHERE (is_primary = true)");

    // With a few thousand users in the project the planner prefers the trigram index to the project's btree indexes.
    const bulk = await server.createProject("Search at scale");
    const rows3000 = Array.from({ length: 3000 }, (_, i) => ({
      projectId: bulk.id,
      id: randomUuid(),
      displayName: `User ${i}`,
    }));
    for (let i = 0; i < rows3000.length; i += 500) {
      const batch = rows3000.slice(i, i + 500);
      await server.deps.db.insert(users).values(batch);
      await server.deps.db.insert(contactChannels).values(
        batch.map((row, j) => ({
          projectId: bulk.id,
          id: randomUuid(),
          userId: row.id,
          value: `user.${i + j}@bulk.example`,
          isPrimary: true,
        })),
      );
    }
    // VACUUM also moves the GIN indexes' pending entries into the index and records its size for the planner, as
    // autovacuum does after a bulk import.
    await server.deps.db.execute(sql`vacuum analyze users`);
    await server.deps.db.execute(sql`vacuum analyze contact_channels`);
    // A sequential scan of 3,000 short rows is still the cheapest plan, so it is switched off for the question asked
    // here: which index answers the project and the pattern.
    const plans = await server.deps.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const explain = async (statement: ReturnType<typeof sql>) => {
        const { rows } = (await tx.execute(statement)) as unknown as { rows: { "QUERY PLAN": string }[] };
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      };
      return [
        await explain(
          sql`explain select id from ${users} where ${users.projectId} = ${bulk.id} and ${users.displayName} ilike '%user 1234%'`,
        ),
        await explain(
          sql`explain select user_id from ${contactChannels} where ${contactChannels.projectId} = ${bulk.id} and ${contactChannels.isPrimary} and ${contactChannels.value} ilike '%.1234@%'`,
        ),
      ];
    });
    expect(plans[0]).toMatch(
      /users_project_display_name_trgm_idx .*\s+Index Cond: \(\(project_id = '[^']+'::text\) AND \(display_name ~~\* '%user 1234%'::text\)\)/,
    );
    expect(plans[1]).toMatch(
      /contact_channels_project_primary_value_trgm_idx .*\s+Index Cond: \(\(project_id = '[^']+'::text\) AND \(value ~~\* '%\.1234@%'::text\)\)/,
    );
  });
});

describe("GET /users totals past the exact-count limit", () => {
  let limited: TestServer;
  let project: TestProject;
  const DAY = 24 * 3600 * 1000;

  beforeAll(async () => {
    limited = await createTestServer({ usersExactCountLimit: 3 });
    project = await limited.createProject("Estimated totals");
    // Ten users, one a day, and one anonymous user who is counted only when asked for.
    const config = await getRenderedConfig(limited.deps, project.id);
    const today = Date.now();
    for (let day = 0; day < 10; day++) {
      const user = await createUser(
        limited.deps.db,
        project.id,
        config,
        { primaryEmail: `user${day}@example.com`, primaryEmailVerified: day < 2 },
        limited.deps.hooks,
      );
      await limited.deps.db
        .update(users)
        .set({ signedUpAt: new Date(today - (10 - day) * DAY) })
        .where(eq(users.id, user.id));
    }
    await createUser(limited.deps.db, project.id, config, { isAnonymous: true }, limited.deps.hooks);
  });
  afterAll(() => limited.close());

  const totalOf = async (params: Record<string, string>) => {
    const query = new URLSearchParams({ include_total: "true", ...params }).toString();
    const response = await limited.request(`/api/v1/users?${query}`, { headers: project.headers("server") });
    expect(response.status, response.text).toBe(200);
    return { count: response.body.total_count, isEstimate: response.body.total_count_is_estimate };
  };

  it("counts exactly up to the limit and says so", async () => {
    expect(await totalOf({ primary_email_verified: "true" })).toEqual({ count: 2, isEstimate: false });
    expect(await totalOf({ include_anonymous: "true", only_anonymous: "true" })).toEqual({
      count: 1,
      isEstimate: false,
    });
  });

  it("estimates past the limit from the share of sign-ups it read, and says it is an estimate", async () => {
    // Four users read (one more than the limit), the fourth signed up on the fourth of ten days: about ten.
    expect(await totalOf({ include_restricted: "true" })).toEqual({ count: 10, isEstimate: true });
    // Never more than the project's users: all eleven with the anonymous one.
    const withAnonymous = await totalOf({ include_anonymous: "true" });
    expect(withAnonymous.isEstimate).toBe(true);
    expect(withAnonymous.count).toBeLessThanOrEqual(11);
    expect(withAnonymous.count).toBeGreaterThan(3);
  });
});
