import { and, eq } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { teamMembers } from "../teams/schema.ts";
import type { ProjectRow } from "./schema.ts";

/**
 * PROTOCOL.md §6: a user of the `internal` project manages every project owned by a team they belong to.
 * The `internal` project itself is managed by members of the seeded internal team.
 */
export async function userManagesProject(
  db: Database,
  internalUserId: string,
  project: ProjectRow,
): Promise<boolean> {
  if (!project.ownerTeamId) return false;
  const [row] = await db
    .select({ teamId: teamMembers.teamId })
    .from(teamMembers)
    .where(
      and(
        eq(teamMembers.projectId, "internal"),
        eq(teamMembers.teamId, project.ownerTeamId),
        eq(teamMembers.userId, internalUserId),
      ),
    )
    .limit(1);
  return row !== undefined;
}
