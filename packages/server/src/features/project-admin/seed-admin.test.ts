import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "../../crypto/index.ts";
import { createTestServer, protocolHeaders, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { issueTokens } from "../sessions/service.ts";
import { teamMembers } from "../teams/schema.ts";
import { users } from "../users/schema.ts";
import { findUser } from "../users/service.ts";
import { INTERNAL_TEAM_ID, SEED_ADMIN_DISPLAY_NAME, seedAdminUser } from "./seed.ts";

let server: TestServer;

beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

const seedEnv = (adminEmail?: string, adminPassword?: string) => ({
  secret: server.deps.env.secret,
  seed: { adminEmail, adminPassword },
});

async function internalTeamMemberships(userId: string) {
  const [row] = await server.deps.db
    .select({ n: count() })
    .from(teamMembers)
    .where(and(eq(teamMembers.teamId, INTERNAL_TEAM_ID), eq(teamMembers.userId, userId)));
  return row!.n;
}

async function usersWithEmail(email: string) {
  const [row] = await server.deps.db
    .select({ n: count() })
    .from(contactChannels)
    .where(and(eq(contactChannels.projectId, "internal"), eq(contactChannels.value, email)));
  return row!.n;
}

describe("seedAdminUser", () => {
  it("does nothing without the variables", async () => {
    const before = await server.deps.db.select({ n: count() }).from(users);
    expect(await seedAdminUser(server.deps, seedEnv())).toBeNull();
    expect(await server.deps.db.select({ n: count() }).from(users)).toEqual(before);
  });

  it("refuses half a configuration", async () => {
    await expect(seedAdminUser(server.deps, seedEnv("admin@example.com"))).rejects.toThrow(
      /GATEHOUSE_SEED_ADMIN_PASSWORD/,
    );
    await expect(seedAdminUser(server.deps, seedEnv(undefined, "secret-password"))).rejects.toThrow(
      /GATEHOUSE_SEED_ADMIN_EMAIL/,
    );
  });

  it("creates a verified administrator in the internal team, once", async () => {
    const userId = await seedAdminUser(server.deps, seedEnv("Root@Example.com", "correct horse battery"));
    expect(userId).not.toBeNull();
    const user = (await findUser(server.deps.db, "internal", userId!))!;
    expect(user.displayName).toBe(SEED_ADMIN_DISPLAY_NAME);
    expect(user.passwordHash).toMatch(/^\$argon2id\$/);
    expect((await verifyPassword(user.passwordHash!, "correct horse battery")).valid).toBe(true);
    const [channel] = await server.deps.db
      .select()
      .from(contactChannels)
      .where(eq(contactChannels.userId, userId!));
    expect(channel).toMatchObject({
      value: "root@example.com",
      isVerified: true,
      isPrimary: true,
      usedForAuth: true,
    });
    expect(await internalTeamMemberships(userId!)).toBe(1);

    // Every later start: same user, password untouched even if the variable changed, membership restored.
    await server.deps.db
      .delete(teamMembers)
      .where(and(eq(teamMembers.teamId, INTERNAL_TEAM_ID), eq(teamMembers.userId, userId!)));
    expect(await seedAdminUser(server.deps, seedEnv("root@example.com", "another password"))).toBe(userId);
    expect(await seedAdminUser(server.deps, seedEnv("root@example.com", "another password"))).toBe(userId);
    expect(await usersWithEmail("root@example.com")).toBe(1);
    expect(await internalTeamMemberships(userId!)).toBe(1);
    const again = (await findUser(server.deps.db, "internal", userId!))!;
    expect((await verifyPassword(again.passwordHash!, "correct horse battery")).valid).toBe(true);
    expect((await verifyPassword(again.passwordHash!, "another password")).valid).toBe(false);
  });

  it("is safe when several instances start at once", async () => {
    const results = await Promise.all(
      [1, 2, 3].map(() => seedAdminUser(server.deps, seedEnv("parallel@example.com", "pw-parallel-1"))),
    );
    expect(new Set(results).size).toBe(1);
    expect(await usersWithEmail("parallel@example.com")).toBe(1);
  });

  it("will not promote someone who signed up with the address without verifying it", async () => {
    const squatter = await createSignedInUser(server, "internal", {
      primaryEmail: "boss@example.com",
      primaryEmailVerified: false,
    });
    await expect(seedAdminUser(server.deps, seedEnv("boss@example.com", "pw-boss-123"))).rejects.toThrow(
      /unverified/,
    );
    expect(await internalTeamMemberships(squatter.user.id)).toBe(0);
  });

  it("makes an administrator of the internal project, reachable with an admin access token", async () => {
    const userId = (await seedAdminUser(server.deps, seedEnv("ops@example.com", "pw-ops-12345")))!;
    const user = (await findUser(server.deps.db, "internal", userId))!;
    const config = await getRenderedConfig(server.deps, "internal");
    const { access_token } = await issueTokens(server.deps, "internal", user, config);
    const response = await server.request("/api/v1/internal/projects/current", {
      headers: protocolHeaders({
        projectId: "internal",
        accessType: "admin",
        adminAccessToken: access_token,
      }),
    });
    expect(response.status).toBe(200);
    expect(response.body.id).toBe("internal");
    const listed = await server.request("/api/v1/internal/projects", {
      headers: server.internal.headers("client", { "x-stack-access-token": access_token }),
    });
    expect(listed.body.items.map((p: { id: string }) => p.id)).toContain("internal");
  });
});
