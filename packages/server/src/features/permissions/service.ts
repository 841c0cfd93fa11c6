/**
 * Permission grants: granting, revoking and listing, plus the seam other features call (team creation and joining,
 * user creation). Definitions are in the config (see definitions.ts); rows here are direct grants only.
 */

import { knownError } from "@gatehouse/shared";
import { and, eq, type SQL } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { type NewEvent, recordEvents } from "../events/record.ts";
import { teamMembers, teams } from "../teams/schema.ts";
import { findUser } from "../users/service.ts";
import { assertPermissionInScope, compareIds, expandPermissions, permissionScopeOf } from "./graph.ts";
import { projectPermissionGrants, teamPermissionGrants } from "./schema.ts";

export type TeamPermissionItem = { id: string; user_id: string; team_id: string };
export type ProjectPermissionItem = { id: string; user_id: string };

/** PostgreSQL's foreign_key_violation: the member or user vanished between our check and the insert. */
function isForeignKeyViolation(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current === "object" && (current as { code?: unknown }).code === "23503") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Listing
// ---------------------------------------------------------------------------------------------------------------

export async function listTeamPermissions(
  db: Database,
  options: {
    projectId: string;
    config: RenderedConfig;
    teamId?: string | undefined;
    userId?: string | undefined;
    permissionId?: string | undefined;
    recursive: boolean;
  },
): Promise<TeamPermissionItem[]> {
  const conditions: SQL[] = [eq(teamPermissionGrants.projectId, options.projectId)];
  if (options.teamId !== undefined) conditions.push(eq(teamPermissionGrants.teamId, options.teamId));
  if (options.userId !== undefined) conditions.push(eq(teamPermissionGrants.userId, options.userId));
  const rows = await db
    .select({
      teamId: teamPermissionGrants.teamId,
      userId: teamPermissionGrants.userId,
      permissionId: teamPermissionGrants.permissionId,
    })
    .from(teamPermissionGrants)
    .where(and(...conditions));

  const byMember = new Map<string, { teamId: string; userId: string; granted: string[] }>();
  for (const row of rows) {
    const key = `${row.teamId}/${row.userId}`;
    const entry = byMember.get(key) ?? { teamId: row.teamId, userId: row.userId, granted: [] };
    entry.granted.push(row.permissionId);
    byMember.set(key, entry);
  }
  const items: TeamPermissionItem[] = [];
  for (const { teamId, userId, granted } of byMember.values()) {
    for (const id of expandPermissions(options.config, "team", granted, options.recursive)) {
      if (options.permissionId === undefined || id === options.permissionId) {
        items.push({ id, user_id: userId, team_id: teamId });
      }
    }
  }
  return items.sort(
    (a, b) => compareIds(a.team_id, b.team_id) || compareIds(a.user_id, b.user_id) || compareIds(a.id, b.id),
  );
}

export async function listProjectPermissions(
  db: Database,
  options: {
    projectId: string;
    config: RenderedConfig;
    userId?: string | undefined;
    permissionId?: string | undefined;
    recursive: boolean;
  },
): Promise<ProjectPermissionItem[]> {
  const conditions: SQL[] = [eq(projectPermissionGrants.projectId, options.projectId)];
  if (options.userId !== undefined) conditions.push(eq(projectPermissionGrants.userId, options.userId));
  const rows = await db
    .select({ userId: projectPermissionGrants.userId, permissionId: projectPermissionGrants.permissionId })
    .from(projectPermissionGrants)
    .where(and(...conditions));

  const byUser = new Map<string, string[]>();
  for (const row of rows) byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), row.permissionId]);
  const items: ProjectPermissionItem[] = [];
  for (const [userId, granted] of byUser) {
    for (const id of expandPermissions(options.config, "project", granted, options.recursive)) {
      if (options.permissionId === undefined || id === options.permissionId)
        items.push({ id, user_id: userId });
    }
  }
  return items.sort((a, b) => compareIds(a.user_id, b.user_id) || compareIds(a.id, b.id));
}

/**
 * Whether the member holds `permissionId` in the team, directly or through containment (transitively). Unknown
 * permission ids are simply not held. Non-members hold nothing, since grants hang off the membership.
 */
export async function hasTeamPermission(
  db: Database,
  options: {
    projectId: string;
    teamId: string;
    userId: string;
    permissionId: string;
    config: RenderedConfig;
  },
): Promise<boolean> {
  const items = await listTeamPermissions(db, {
    projectId: options.projectId,
    config: options.config,
    teamId: options.teamId,
    userId: options.userId,
    permissionId: options.permissionId,
    recursive: true,
  });
  return items.length > 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Granting and revoking
// ---------------------------------------------------------------------------------------------------------------

/** TEAM_NOT_FOUND or TEAM_MEMBERSHIP_NOT_FOUND unless the user is a member of the team in this project. */
async function assertMembership(db: Database, projectId: string, teamId: string, userId: string) {
  const [member] = await db
    .select({ userId: teamMembers.userId })
    .from(teamMembers)
    .where(
      and(
        eq(teamMembers.projectId, projectId),
        eq(teamMembers.teamId, teamId),
        eq(teamMembers.userId, userId),
      ),
    )
    .limit(1);
  if (member) return;
  const [team] = await db
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.projectId, projectId), eq(teams.id, teamId)))
    .limit(1);
  if (!team) throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
  throw knownError("TEAM_MEMBERSHIP_NOT_FOUND", { team_id: teamId, user_id: userId });
}

async function assertUser(db: Database, projectId: string, userId: string) {
  if (!(await findUser(db, projectId, userId))) throw knownError("USER_NOT_FOUND");
}

/** The webhook events of grants made or removed (PROTOCOL-EXTRA §3.1), one per row the statement touched. */
function teamPermissionEvents(
  type: "team_permission.created" | "team_permission.deleted",
  target: { teamId: string; userId: string },
  rows: readonly { permissionId: string }[],
): NewEvent[] {
  return rows.map((row) => ({
    type,
    data: { id: row.permissionId, team_id: target.teamId, user_id: target.userId },
    userId: target.userId,
    teamId: target.teamId,
  }));
}

function projectPermissionEvents(
  type: "project_permission.created" | "project_permission.deleted",
  userId: string,
  rows: readonly { permissionId: string }[],
): NewEvent[] {
  return rows.map((row) => ({ type, data: { id: row.permissionId, user_id: userId }, userId }));
}

type TeamGrantTarget = {
  projectId: string;
  config: RenderedConfig;
  teamId: string;
  userId: string;
  permissionId: string;
};

/** Grants a team permission to a member; granting one already held is a no-op. */
export async function grantTeamPermission(
  db: Database,
  target: TeamGrantTarget,
): Promise<TeamPermissionItem> {
  assertPermissionInScope(target.config, target.permissionId, "team");
  await assertMembership(db, target.projectId, target.teamId, target.userId);
  try {
    await db.transaction(async (tx) => {
      const inserted = await tx
        .insert(teamPermissionGrants)
        .values({
          projectId: target.projectId,
          teamId: target.teamId,
          userId: target.userId,
          permissionId: target.permissionId,
        })
        .onConflictDoNothing()
        .returning({ permissionId: teamPermissionGrants.permissionId });
      await recordEvents(
        tx as Database,
        target.projectId,
        teamPermissionEvents("team_permission.created", target, inserted),
      );
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) {
      throw knownError("TEAM_MEMBERSHIP_NOT_FOUND", { team_id: target.teamId, user_id: target.userId });
    }
    throw error;
  }
  return { id: target.permissionId, user_id: target.userId, team_id: target.teamId };
}

/** Removes a direct grant; revoking one not held is a no-op. Contained permissions go with their container. */
export async function revokeTeamPermission(db: Database, target: TeamGrantTarget): Promise<void> {
  assertPermissionInScope(target.config, target.permissionId, "team");
  await assertMembership(db, target.projectId, target.teamId, target.userId);
  await db.transaction(async (tx) => {
    const deleted = await tx
      .delete(teamPermissionGrants)
      .where(
        and(
          eq(teamPermissionGrants.projectId, target.projectId),
          eq(teamPermissionGrants.teamId, target.teamId),
          eq(teamPermissionGrants.userId, target.userId),
          eq(teamPermissionGrants.permissionId, target.permissionId),
        ),
      )
      .returning({ permissionId: teamPermissionGrants.permissionId });
    await recordEvents(
      tx as Database,
      target.projectId,
      teamPermissionEvents("team_permission.deleted", target, deleted),
    );
  });
}

type ProjectGrantTarget = { projectId: string; config: RenderedConfig; userId: string; permissionId: string };

export async function grantProjectPermission(
  db: Database,
  target: ProjectGrantTarget,
): Promise<ProjectPermissionItem> {
  assertPermissionInScope(target.config, target.permissionId, "project");
  await assertUser(db, target.projectId, target.userId);
  try {
    await db.transaction(async (tx) => {
      const inserted = await tx
        .insert(projectPermissionGrants)
        .values({ projectId: target.projectId, userId: target.userId, permissionId: target.permissionId })
        .onConflictDoNothing()
        .returning({ permissionId: projectPermissionGrants.permissionId });
      await recordEvents(
        tx as Database,
        target.projectId,
        projectPermissionEvents("project_permission.created", target.userId, inserted),
      );
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) throw knownError("USER_NOT_FOUND");
    throw error;
  }
  return { id: target.permissionId, user_id: target.userId };
}

export async function revokeProjectPermission(db: Database, target: ProjectGrantTarget): Promise<void> {
  assertPermissionInScope(target.config, target.permissionId, "project");
  await assertUser(db, target.projectId, target.userId);
  await db.transaction(async (tx) => {
    const deleted = await tx
      .delete(projectPermissionGrants)
      .where(
        and(
          eq(projectPermissionGrants.projectId, target.projectId),
          eq(projectPermissionGrants.userId, target.userId),
          eq(projectPermissionGrants.permissionId, target.permissionId),
        ),
      )
      .returning({ permissionId: projectPermissionGrants.permissionId });
    await recordEvents(
      tx as Database,
      target.projectId,
      projectPermissionEvents("project_permission.deleted", target.userId, deleted),
    );
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Default permission sets (the seam for teams and users)
// ---------------------------------------------------------------------------------------------------------------

/**
 * Grants the project's `teamCreator` or `teamMember` default set to a member. Call it after inserting the
 * membership row, in the same transaction (grants reference the membership). Idempotent.
 */
export async function grantDefaultTeamPermissions(
  db: Database,
  options: {
    projectId: string;
    teamId: string;
    userId: string;
    config: RenderedConfig;
    kind: "creator" | "member";
  },
): Promise<void> {
  const set =
    options.config.rbac.defaultPermissions[options.kind === "creator" ? "teamCreator" : "teamMember"];
  const ids = Object.keys(set).filter((id) => permissionScopeOf(options.config, id) === "team");
  if (ids.length === 0) return;
  const inserted = await db
    .insert(teamPermissionGrants)
    .values(
      ids.map((permissionId) => ({
        projectId: options.projectId,
        teamId: options.teamId,
        userId: options.userId,
        permissionId,
      })),
    )
    .onConflictDoNothing()
    .returning({ permissionId: teamPermissionGrants.permissionId });
  await recordEvents(
    db,
    options.projectId,
    teamPermissionEvents("team_permission.created", options, inserted),
  );
}

/** Grants the project's `signUp` default set to a new user. Idempotent. */
export async function grantDefaultProjectPermissions(
  db: Database,
  options: { projectId: string; userId: string; config: RenderedConfig },
): Promise<void> {
  const ids = Object.keys(options.config.rbac.defaultPermissions.signUp).filter(
    (id) => permissionScopeOf(options.config, id) === "project",
  );
  if (ids.length === 0) return;
  const inserted = await db
    .insert(projectPermissionGrants)
    .values(
      ids.map((permissionId) => ({ projectId: options.projectId, userId: options.userId, permissionId })),
    )
    .onConflictDoNothing()
    .returning({ permissionId: projectPermissionGrants.permissionId });
  await recordEvents(
    db,
    options.projectId,
    projectPermissionEvents("project_permission.created", options.userId, inserted),
  );
}
