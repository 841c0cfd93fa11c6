import { and, eq, inArray } from "drizzle-orm";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { recordEvents } from "../events/record.ts";
import { teamView } from "../users/views.ts";
import { teamMembers, teams } from "./schema.ts";

/** What a personal team is called while its user has neither a display name nor an email (an anonymous user). */
export const DEFAULT_PERSONAL_TEAM_NAME = "Personal Team";

/** The name of a personal team (PROTOCOL.md §3.2): "<display name>'s Team", else "<email>'s Team", else "Personal Team". */
export function personalTeamName(
  displayName: string | null | undefined,
  email: string | null | undefined,
): string {
  if (displayName) return `${displayName}'s Team`;
  if (email) return `${email}'s Team`;
  return DEFAULT_PERSONAL_TEAM_NAME;
}

/**
 * Creates the user's personal team with them as its only member, inside the caller's transaction, and returns its
 * id. Default permissions are the caller's business (user creation runs hooks, an anonymous upgrade grants
 * directly). Of users/ it imports only the views (the team read for its event), so user creation can call it
 * without an import cycle.
 */
export async function createPersonalTeam(
  tx: Database,
  projectId: string,
  userId: string,
  displayName: string | null | undefined,
  email: string | null | undefined,
): Promise<string> {
  const teamId = randomUuid();
  const [team] = await tx
    .insert(teams)
    .values({ projectId, id: teamId, displayName: personalTeamName(displayName, email) })
    .returning();
  await tx.insert(teamMembers).values({ projectId, teamId, userId });
  // team.created, as for any team; the creator's membership sends none (PROTOCOL-EXTRA §3.1).
  await recordEvents(tx, projectId, [{ type: "team.created", data: teamView(team!), teamId }]);
  return teamId;
}

/**
 * The personal team of an anonymous user who just became a full account, as the reference platform does it: the
 * user's teams still called "Personal Team" (the name an anonymous user's team gets) are renamed after the account
 * (`personalTeamName`), keeping their id. Returns the ids renamed, or an empty list when the user has no such team.
 */
export async function renameAnonymousPersonalTeams(
  tx: Database,
  projectId: string,
  userId: string,
  displayName: string | null | undefined,
  email: string | null | undefined,
): Promise<string[]> {
  const candidates = await tx
    .select({ id: teams.id })
    .from(teams)
    .innerJoin(teamMembers, and(eq(teamMembers.projectId, teams.projectId), eq(teamMembers.teamId, teams.id)))
    .where(
      and(
        eq(teams.projectId, projectId),
        eq(teamMembers.userId, userId),
        eq(teams.displayName, DEFAULT_PERSONAL_TEAM_NAME),
      ),
    );
  const ids = candidates.map((row) => row.id);
  const name = personalTeamName(displayName, email);
  if (ids.length === 0 || name === DEFAULT_PERSONAL_TEAM_NAME) return ids;
  const renamed = await tx
    .update(teams)
    .set({ displayName: name })
    .where(and(eq(teams.projectId, projectId), inArray(teams.id, ids)))
    .returning();
  await recordEvents(
    tx,
    projectId,
    renamed.map((team) => ({ type: "team.updated" as const, data: teamView(team), teamId: team.id })),
  );
  return ids;
}

/** Whether the user belongs to any team of the project. */
export async function isInAnyTeam(tx: Database, projectId: string, userId: string): Promise<boolean> {
  const [row] = await tx
    .select({ teamId: teamMembers.teamId })
    .from(teamMembers)
    .where(and(eq(teamMembers.projectId, projectId), eq(teamMembers.userId, userId)))
    .limit(1);
  return row !== undefined;
}
