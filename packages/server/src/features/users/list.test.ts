import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUuid } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { oauthAccounts } from "../oauth/schema.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { users } from "./schema.ts";
import { createUser, type NewUser } from "./service.ts";
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
