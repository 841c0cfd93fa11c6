/**
 * Transferring a project to an internal team and deleting that team, one after the other and at the same time: a
 * project must never end up owned by a team that no longer exists (there is no foreign key to stop it).
 */
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Database } from "../../db/index.ts";
import { createTestServer, type TestServer } from "../../testing/harness.ts";
import { owningTeamOf, type ProjectOwner, projectOwner } from "../../testing/project-owners.ts";
import { projects } from "../projects/schema.ts";
import { teamMembers, teams } from "../teams/schema.ts";

let server: TestServer;
let owner: ProjectOwner;

beforeAll(async () => {
  server = await createTestServer();
  owner = await projectOwner(server, "transfer-owner@example.com");
});
afterAll(() => server.close());

const transfer = (projectId: string, teamId: string) =>
  server.request("/api/v1/internal/projects/transfer", {
    method: "POST",
    headers: owner.headers(),
    body: { project_id: projectId, new_team_id: teamId },
  });

const deleteTeam = (teamId: string) =>
  server.request(`/api/v1/teams/${teamId}`, { method: "DELETE", headers: server.internal.headers("server") });

const ownerOf = (projectId: string) => owningTeamOf(server, projectId);

async function teamExists(teamId: string): Promise<boolean> {
  const rows = await server.deps.db
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.projectId, "internal"), eq(teams.id, teamId)));
  return rows.length > 0;
}

describe("transferring a project to a deleted team", () => {
  it("is refused with TEAM_NOT_FOUND, leaving the owner as it was", async () => {
    const from = await owner.team("From");
    const gone = await owner.team("Gone");
    const projectId = await owner.project(from);
    expect((await deleteTeam(gone)).status).toBe(200);

    const response = await transfer(projectId, gone);
    expect(response.status, response.text).toBe(404);
    expect(response.headers.get("x-stack-known-error")).toBe("TEAM_NOT_FOUND");
    expect(await ownerOf(projectId)).toBe(from);
  });

  it("is refused for project creation too", async () => {
    const gone = await owner.team("Gone too");
    expect((await deleteTeam(gone)).status).toBe(200);
    const response = await server.request("/api/v1/internal/projects", {
      method: "POST",
      headers: owner.headers(),
      body: { display_name: "Orphan", owner_team_id: gone },
    });
    expect(response.status, response.text).toBe(404);
    expect(response.headers.get("x-stack-known-error")).toBe("TEAM_NOT_FOUND");
    const orphans = await server.deps.db.select().from(projects).where(eq(projects.ownerTeamId, gone));
    expect(orphans).toEqual([]);
  });
});

/**
 * The two at the same time. One side runs in a transaction the test holds open at the point where the real code
 * holds its lock; the other side is a real request, which must wait for that lock. PGlite has a single connection
 * that runs one transaction at a time, so such an overlap can only be arranged on PostgreSQL: these tests exist on
 * the PostgreSQL pass of CI only (the PGlite pass runs the one-after-the-other cases above), rather than being
 * reported as skipped there.
 */
if (process.env.DATABASE_URL) {
  describe("transfer and team deletion at the same time (PostgreSQL)", () => {
    /** Runs `work` in a transaction that stays open until the returned `commit` is called. */
    async function openTransaction(work: (tx: Database) => Promise<void>) {
      let commit!: () => void;
      const committing = new Promise<void>((resolve) => {
        commit = resolve;
      });
      let ready!: () => void;
      const started = new Promise<void>((resolve) => {
        ready = resolve;
      });
      const done = server.deps.db.transaction(async (tx) => {
        await work(tx as Database);
        ready();
        await committing;
      });
      await Promise.race([started, done]);
      return {
        commit: async () => {
          commit();
          await done;
        },
      };
    }

    /** Resolves once another connection of this database waits for a lock: the request has reached the locked row. */
    async function someoneWaitsForALock() {
      await vi.waitFor(
        async () => {
          const result = (await server.deps.db.execute(
            sql`select count(*)::int as waiting from pg_locks l join pg_stat_activity a on a.pid = l.pid
              where not l.granted and a.datname = current_database()`,
          )) as unknown as { rows: { waiting: number }[] };
          expect(result.rows[0]!.waiting).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 20 },
      );
    }

    it("a transfer waits for a deletion under way, then reports the team gone", async () => {
      const from = await owner.team("Race from");
      const doomed = await owner.team("Race doomed");
      const projectId = await owner.project(from);

      // What deleteTeam does: lock the team row, then delete it (its memberships cascade).
      const deletion = await openTransaction(async (tx) => {
        await tx.select({ id: teams.id }).from(teams).where(eq(teams.id, doomed)).for("update");
        await tx.delete(teams).where(and(eq(teams.projectId, "internal"), eq(teams.id, doomed)));
      });
      const transferred = transfer(projectId, doomed);
      try {
        await someoneWaitsForALock();
      } finally {
        await deletion.commit();
      }

      const response = await transferred;
      expect(response.status, response.text).toBe(404);
      expect(response.headers.get("x-stack-known-error")).toBe("TEAM_NOT_FOUND");
      expect(await ownerOf(projectId)).toBe(from);
    });

    it("a deletion waits for a transfer under way, then refuses because the team owns the project", async () => {
      const from = await owner.team("Race source");
      const receiving = await owner.team("Race receiving");
      const projectId = await owner.project(from);

      // What transferProject does: lock the new team FOR SHARE (checking the membership), then write the owner.
      const transferring = await openTransaction(async (tx) => {
        await tx
          .select({ id: teams.id })
          .from(teams)
          .innerJoin(teamMembers, eq(teamMembers.teamId, teams.id))
          .where(and(eq(teams.id, receiving), eq(teamMembers.userId, owner.userId)))
          .for("share", { of: teams });
        await tx.update(projects).set({ ownerTeamId: receiving }).where(eq(projects.id, projectId));
      });
      const deleted = deleteTeam(receiving);
      try {
        await someoneWaitsForALock();
      } finally {
        await transferring.commit();
      }

      const response = await deleted;
      expect(response.status, response.text).toBe(400);
      expect(response.text).toContain("owns a project");
      expect(await teamExists(receiving)).toBe(true);
      expect(await ownerOf(projectId)).toBe(receiving);
    });
  });
}
