/**
 * Test helpers for the features built on teams: a team and its memberships written straight to the database, so
 * that these tests do not depend on the team routes.
 */
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { teamMembers, teams } from "../teams/schema.ts";

export async function insertTeam(
  db: Database,
  projectId: string,
  memberIds: readonly string[] = [],
): Promise<string> {
  const teamId = randomUuid();
  await db.insert(teams).values({ projectId, id: teamId, displayName: "Test team" });
  for (const userId of memberIds) await insertMember(db, projectId, teamId, userId);
  return teamId;
}

export async function insertMember(db: Database, projectId: string, teamId: string, userId: string) {
  await db.insert(teamMembers).values({ projectId, teamId, userId });
}
