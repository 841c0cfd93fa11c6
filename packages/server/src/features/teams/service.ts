import { knownError } from "@gatehouse/shared";
import { and, asc, desc, eq, or, type SQL, sql } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { isUuid } from "../../fields/ids.ts";
import { StatusError } from "../../http/status-error.ts";
import { type NewEvent, recordEvents } from "../events/record.ts";
import { projects } from "../projects/schema.ts";
import { clearSelectedTeam } from "../users/store.ts";
import { teamView } from "../users/views.ts";
import { deleteCodes } from "../verification-codes/service.ts";
import { grantDefaultTeamPermissions } from "./permission-seam.ts";
import { type TeamMemberRow, type TeamRow, teamInvitations, teamMembers, teams } from "./schema.ts";

export async function findTeam(db: Database, projectId: string, teamId: string): Promise<TeamRow | null> {
  // Ids come straight from paths and bodies; a non-UUID would make PostgreSQL fail the uuid cast.
  if (!isUuid(teamId)) return null;
  const [row] = await db
    .select()
    .from(teams)
    .where(and(eq(teams.projectId, projectId), eq(teams.id, teamId)))
    .limit(1);
  return row ?? null;
}

export async function requireTeam(db: Database, projectId: string, teamId: string): Promise<TeamRow> {
  const team = await findTeam(db, projectId, teamId);
  if (!team) throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
  return team;
}

export async function findMembership(
  db: Database,
  projectId: string,
  teamId: string,
  userId: string,
): Promise<TeamMemberRow | null> {
  if (!isUuid(teamId) || !isUuid(userId)) return null;
  const [row] = await db
    .select()
    .from(teamMembers)
    .where(
      and(
        eq(teamMembers.projectId, projectId),
        eq(teamMembers.teamId, teamId),
        eq(teamMembers.userId, userId),
      ),
    )
    .limit(1);
  return row ?? null;
}

export type ListTeamsQuery = {
  /** Only teams this user belongs to. */
  userId?: string;
  /** Without a limit every matching team is returned (the SDK's `getTeam(id)` searches the full list). */
  limit?: number;
  /** The id of the first team of the page (inclusive), as returned in `next_cursor`. */
  cursor?: string;
  desc?: boolean;
  /** Part of the display name (case-insensitive), or an exact team id. */
  search?: string;
};

/** `%`, `_` and the escape character itself are wildcards in LIKE patterns; the search text is literal. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Teams of the project, or of one user, ordered by creation. Keyset pagination over (created_at, id): the cursor's
 * position is read inside the query, at full timestamp precision.
 */
export async function listTeams(
  db: Database,
  projectId: string,
  query: ListTeamsQuery = {},
): Promise<{ rows: TeamRow[]; nextCursor: string | null }> {
  const conditions: SQL[] = [eq(teams.projectId, projectId)];
  if (query.userId !== undefined) {
    if (!isUuid(query.userId)) return { rows: [], nextCursor: null };
    conditions.push(
      sql`exists (select 1 from ${teamMembers} where ${teamMembers.projectId} = ${projectId} and ${teamMembers.teamId} = ${teams.id} and ${teamMembers.userId} = ${query.userId})`,
    );
  }
  const search = query.search?.trim();
  if (search) {
    const matches: SQL[] = [sql`${teams.displayName} ilike ${`%${escapeLike(search)}%`}`];
    if (isUuid(search)) matches.push(eq(teams.id, search.toLowerCase()));
    conditions.push(or(...matches)!);
  }
  if (query.cursor !== undefined) {
    if (!(await findTeam(db, projectId, query.cursor))) {
      throw new StatusError(400, "Unknown cursor: it must be the next_cursor of a previous page.");
    }
    const position = sql`((select c.created_at from ${teams} c where c.project_id = ${projectId} and c.id = ${query.cursor}::uuid), ${query.cursor}::uuid)`;
    conditions.push(
      query.desc
        ? sql`(${teams.createdAt}, ${teams.id}) <= ${position}`
        : sql`(${teams.createdAt}, ${teams.id}) >= ${position}`,
    );
  }
  const direction = query.desc ? desc : asc;
  const select = db
    .select()
    .from(teams)
    .where(and(...conditions))
    .orderBy(direction(teams.createdAt), direction(teams.id));
  if (query.limit === undefined) return { rows: await select, nextCursor: null };
  const rows = await select.limit(query.limit + 1);
  const next = rows.length > query.limit ? rows.pop()! : null;
  return { rows, nextCursor: next?.id ?? null };
}

/** A team event's payload: the server team read (PROTOCOL-EXTRA §3.1). */
function teamEvent(type: "team.created" | "team.updated", team: TeamRow): NewEvent {
  return { type, data: teamView(team), teamId: team.id };
}

export function membershipEvent(
  type: "team_membership.created" | "team_membership.deleted",
  ref: { teamId: string; userId: string },
): NewEvent {
  return { type, data: { team_id: ref.teamId, user_id: ref.userId }, teamId: ref.teamId, userId: ref.userId };
}

export type TeamFields = {
  displayName?: string;
  profileImageUrl?: string | null;
  clientMetadata?: unknown;
  clientReadOnlyMetadata?: unknown;
  serverMetadata?: unknown;
};

/** Creates a team; the creator, if any, becomes its first member with the creator's default permissions. */
export async function createTeam(
  db: Database,
  projectId: string,
  config: RenderedConfig,
  fields: TeamFields & { displayName: string },
  creatorUserId: string | null,
): Promise<TeamRow> {
  return db.transaction(async (tx) => {
    const [team] = await tx
      .insert(teams)
      .values({
        projectId,
        id: randomUuid(),
        displayName: fields.displayName,
        profileImageUrl: fields.profileImageUrl ?? null,
        clientMetadata: fields.clientMetadata ?? null,
        clientReadOnlyMetadata: fields.clientReadOnlyMetadata ?? null,
        serverMetadata: fields.serverMetadata ?? null,
      })
      .returning();
    // The creator's membership sends no event of its own (PROTOCOL-EXTRA §3.1); their default grants do.
    await recordEvents(tx as Database, projectId, [teamEvent("team.created", team!)]);
    if (creatorUserId) {
      await addMember(
        tx as Database,
        { projectId, teamId: team!.id, userId: creatorUserId, config },
        "creator",
      );
    }
    return team!;
  });
}

/** Creates a team with a well-known id unless it exists (the seed's internal team; several instances may race). */
export async function ensureTeamExists(
  db: Database,
  projectId: string,
  teamId: string,
  displayName: string,
): Promise<void> {
  await db.insert(teams).values({ projectId, id: teamId, displayName }).onConflictDoNothing();
}

export async function updateTeam(
  db: Database,
  projectId: string,
  teamId: string,
  fields: TeamFields,
): Promise<TeamRow | null> {
  // Not given (undefined) leaves a column alone; null clears it.
  const values = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  if (Object.keys(values).length === 0) return findTeam(db, projectId, teamId);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(teams)
      .set(values)
      .where(and(eq(teams.projectId, projectId), eq(teams.id, teamId)))
      .returning();
    if (row) await recordEvents(tx as Database, projectId, [teamEvent("team.updated", row)]);
    return row ?? null;
  });
}

const INTERNAL_PROJECT_ID = "internal";

/**
 * Teams of the `internal` project own projects (PROTOCOL.md §6): deleting one would leave its projects without
 * owners, manageable by nobody. The owner has to transfer or delete them first. The projects are locked so that
 * none is transferred away between this check and the deletion.
 */
async function refuseIfOwnsProjects(tx: Database, teamId: string): Promise<void> {
  const owned = await tx
    .select({ id: projects.id, displayName: projects.displayName })
    .from(projects)
    .where(eq(projects.ownerTeamId, teamId))
    .orderBy(projects.createdAt, projects.id)
    .for("update");
  if (owned.length === 0) return;
  const names = owned
    .slice(0, 5)
    .map((project) => `"${project.displayName}" (${project.id})`)
    .join(", ");
  const more = owned.length > 5 ? ` and ${owned.length - 5} more` : "";
  throw new StatusError(
    400,
    `This team owns ${owned.length === 1 ? "a project" : `${owned.length} projects`}: ${names}${more}. ` +
      "Transfer them to another team or delete them before deleting the team.",
  );
}

/**
 * Deletes a team. Memberships and invitations cascade from the row; the invitation codes are deleted too so that a
 * link still sitting in someone's inbox answers "not found", and nobody keeps the team as their selected team.
 */
export async function deleteTeam(db: Database, projectId: string, teamId: string): Promise<boolean> {
  if (!isUuid(teamId)) return false;
  return db.transaction(async (tx) => {
    // Locked before looking for owned projects: a transfer or project creation naming this team holds the row FOR
    // SHARE until its owner is written, so either it finishes first and its project is found below, or it waits
    // and then finds the team gone (see transferProject).
    const [team] = await tx
      .select({ id: teams.id })
      .from(teams)
      .where(and(eq(teams.projectId, projectId), eq(teams.id, teamId)))
      .for("update");
    if (!team) return false;
    if (projectId === INTERNAL_PROJECT_ID) await refuseIfOwnsProjects(tx as Database, teamId);
    const codeIds = tx
      .select({ id: teamInvitations.codeId })
      .from(teamInvitations)
      .where(and(eq(teamInvitations.projectId, projectId), eq(teamInvitations.teamId, teamId)));
    await deleteCodes(tx as Database, projectId, codeIds);
    await clearSelectedTeam(tx as Database, projectId, teamId);
    const deleted = await tx
      .delete(teams)
      .where(and(eq(teams.projectId, projectId), eq(teams.id, teamId)))
      .returning({ id: teams.id });
    await recordEvents(
      tx as Database,
      projectId,
      deleted.map((row) => ({ type: "team.deleted" as const, data: { id: row.id }, teamId: row.id })),
    );
    return deleted.length > 0;
  });
}

export type MembershipRef = { projectId: string; teamId: string; userId: string; config: RenderedConfig };

/**
 * Adds a member with the default permissions of their kind. Returns false, changing nothing, when they already
 * are one. The caller has checked that team and user exist in the project.
 */
export async function addMember(
  db: Database,
  ref: MembershipRef,
  kind: "creator" | "member" = "member",
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(teamMembers)
      .values({ projectId: ref.projectId, teamId: ref.teamId, userId: ref.userId })
      .onConflictDoNothing()
      .returning({ userId: teamMembers.userId });
    if (inserted.length === 0) return false;
    if (kind === "member") {
      await recordEvents(tx as Database, ref.projectId, [membershipEvent("team_membership.created", ref)]);
    }
    await grantDefaultTeamPermissions(tx as Database, { ...ref, kind });
    return true;
  });
}

/** Removes a member; a user whose selected team this was is left without one. False when not a member. */
export async function removeMember(
  db: Database,
  projectId: string,
  teamId: string,
  userId: string,
): Promise<boolean> {
  if (!isUuid(teamId) || !isUuid(userId)) return false;
  return db.transaction(async (tx) => {
    const deleted = await tx
      .delete(teamMembers)
      .where(
        and(
          eq(teamMembers.projectId, projectId),
          eq(teamMembers.teamId, teamId),
          eq(teamMembers.userId, userId),
        ),
      )
      .returning({ userId: teamMembers.userId });
    if (deleted.length === 0) return false;
    await recordEvents(tx as Database, projectId, [
      membershipEvent("team_membership.deleted", { teamId, userId }),
    ]);
    await clearSelectedTeam(tx as Database, projectId, teamId, userId);
    return true;
  });
}

/** Changes a member's own name or picture in a team; undefined leaves a field alone, null falls back to the user's. */
export async function updateMemberProfile(
  db: Database,
  projectId: string,
  teamId: string,
  userId: string,
  fields: { displayName?: string | null | undefined; profileImageUrl?: string | null | undefined },
): Promise<void> {
  const values = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  if (Object.keys(values).length === 0 || !isUuid(teamId) || !isUuid(userId)) return;
  await db
    .update(teamMembers)
    .set(values)
    .where(
      and(
        eq(teamMembers.projectId, projectId),
        eq(teamMembers.teamId, teamId),
        eq(teamMembers.userId, userId),
      ),
    );
}
