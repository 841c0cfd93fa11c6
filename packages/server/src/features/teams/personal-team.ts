import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { recordEvents } from "../events/record.ts";
import { teamView } from "../users/views.ts";
import { teamMembers, teams } from "./schema.ts";

/** The name of a personal team (PROTOCOL.md §3.2): "<display name>'s Team", else "<email>'s Team", else "Personal Team". */
export function personalTeamName(
  displayName: string | null | undefined,
  email: string | null | undefined,
): string {
  if (displayName) return `${displayName}'s Team`;
  if (email) return `${email}'s Team`;
  return "Personal Team";
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
