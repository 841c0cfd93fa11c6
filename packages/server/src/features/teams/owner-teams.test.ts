/** Teams of the internal project own projects; deleting one must not leave projects without an owner. */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestServer } from "../../testing/harness.ts";
import { owningTeamOf, type ProjectOwner, projectOwner } from "../../testing/project-owners.ts";
import { INTERNAL_TEAM_ID } from "../project-admin/seed.ts";
import { projects } from "../projects/schema.ts";
import { findTeam } from "./service.ts";

let server: TestServer;
let owner: ProjectOwner;

beforeAll(async () => {
  server = await createTestServer();
  owner = await projectOwner(server, "owner@example.com");
});
afterAll(() => server.close());

const deleteTeam = (teamId: string, headers: Record<string, string>) =>
  server.request(`/api/v1/teams/${teamId}`, { method: "DELETE", headers });

const ownerOf = (projectId: string) => owningTeamOf(server, projectId);

describe("deleting a team of the internal project", () => {
  it("is refused with a 400 naming the projects while the team owns any, for servers and members alike", async () => {
    const teamId = await owner.team("Owners");
    const first = await owner.project(teamId, "Rocket");
    const second = await owner.project(teamId, "Sled");

    for (const headers of [
      server.internal.headers("server"),
      server.internal.headers("admin"),
      owner.headers(),
    ]) {
      const response = await deleteTeam(teamId, headers);
      expect(response.status, response.text).toBe(400);
      expect(response.headers.get("x-stack-known-error")).toBeNull();
      expect(response.text).toContain("owns 2 projects");
      expect(response.text).toContain(`"Rocket" (${first})`);
      expect(response.text).toContain(`"Sled" (${second})`);
      expect(response.text).toMatch(/Transfer them to another team or delete them/);
    }
    expect(await findTeam(server.deps.db, "internal", teamId)).not.toBeNull();
    expect(await ownerOf(first)).toBe(teamId);
    expect(await ownerOf(second)).toBe(teamId);
  });

  it("goes through once the projects are transferred or deleted", async () => {
    const teamId = await owner.team("Leaving");
    const otherTeamId = await owner.team("Staying");
    const moved = await owner.project(teamId, "Moved");
    const removed = await owner.project(teamId, "Removed");

    const transfer = await server.request("/api/v1/internal/projects/transfer", {
      method: "POST",
      headers: owner.headers(),
      body: { project_id: moved, new_team_id: otherTeamId },
    });
    expect(transfer.status, transfer.text).toBe(200);
    const stillOne = await deleteTeam(teamId, server.internal.headers("server"));
    expect(stillOne.status).toBe(400);
    expect(stillOne.text).toContain("owns a project");

    await server.deps.db.delete(projects).where(eq(projects.id, removed));
    const response = await deleteTeam(teamId, server.internal.headers("server"));
    expect(response.status, response.text).toBe(200);
    expect(await findTeam(server.deps.db, "internal", teamId)).toBeNull();
    expect(await ownerOf(moved)).toBe(otherTeamId);
  });

  it("protects the seeded internal team, which owns the internal project", async () => {
    const response = await deleteTeam(INTERNAL_TEAM_ID, server.internal.headers("admin"));
    expect(response.status).toBe(400);
    expect(response.text).toContain('"Gatehouse Dashboard" (internal)');
  });

  it("leaves teams without projects, and teams of other projects, deletable", async () => {
    const empty = await owner.team("Empty");
    expect((await deleteTeam(empty, server.internal.headers("server"))).status).toBe(200);

    const tenant = await server.createProject("Tenant");
    const created = await server.request("/api/v1/teams", {
      method: "POST",
      headers: tenant.headers("server"),
      body: { display_name: "Tenant team" },
    });
    expect(created.status, created.text).toBe(201);
    // Even if a tenant's project row named this id as its owner, only internal teams own projects.
    const owned = await owner.project(await owner.team("Decoy"), "Decoy");
    await server.deps.db.update(projects).set({ ownerTeamId: created.body.id }).where(eq(projects.id, owned));
    expect((await deleteTeam(created.body.id, tenant.headers("server"))).status).toBe(200);
  });
});
