import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { projects } from "../features/projects/schema.ts";
import type { TestServer } from "./harness.ts";
import { createSignedInUser } from "./users.ts";

export type ProjectOwner = {
  userId: string;
  accessToken: string;
  /** Client headers of the `internal` project signed in as the owner. */
  headers(extra?: Record<string, string>): Record<string, string>;
  /** A team of the internal project the owner created (and so belongs to); its id. */
  team(name: string): Promise<string>;
  /** A project owned by `teamId`, created by the owner through POST /internal/projects; its id. */
  project(teamId: string, name?: string): Promise<string>;
};

/** A signed-in user of the `internal` project, with verified `email`, who makes teams and the projects they own. */
export async function projectOwner(server: TestServer, email: string): Promise<ProjectOwner> {
  const { user, accessToken } = await createSignedInUser(server, "internal", {
    primaryEmail: email,
    primaryEmailVerified: true,
  });
  const headers = (extra: Record<string, string> = {}) =>
    server.internal.headers("client", { "x-stack-access-token": accessToken, ...extra });
  const created = async (path: string, init: { headers: Record<string, string>; body: unknown }) => {
    const response = await server.request(`/api/v1${path}`, { method: "POST", ...init });
    expect(response.status, response.text).toBe(201);
    return response.body.id as string;
  };
  return {
    userId: user.id,
    accessToken,
    headers,
    team: (name) =>
      created("/teams", {
        headers: server.internal.headers("server"),
        body: { display_name: name, creator_user_id: user.id },
      }),
    project: (teamId, name = "Rocket") =>
      created("/internal/projects", {
        headers: headers(),
        body: { display_name: name, owner_team_id: teamId },
      }),
  };
}

/** The team that owns a project now, read from its row (undefined once the project is gone). */
export async function owningTeamOf(
  server: TestServer,
  projectId: string,
): Promise<string | null | undefined> {
  const [row] = await server.deps.db
    .select({ ownerTeamId: projects.ownerTeamId })
    .from(projects)
    .where(eq(projects.id, projectId));
  return row?.ownerTeamId;
}
