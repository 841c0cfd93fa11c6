import { knownError } from "@gatehouse/shared";
import { and, eq } from "drizzle-orm";
import {
  type ConfigOverride,
  type LegacyConfigUpdate,
  legacyConfigUpdateToOverride,
  mergeLevelOverrides,
  mergeOverrideOverride,
  newProjectOverride,
} from "../../config/index.ts";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { isStorableText } from "../../fields/text.ts";
import { teamMembers, teams } from "../teams/schema.ts";
import { type ConfigStoreDeps, createConfigRows, updateConfigOverride } from "./config-store.ts";
import { announceProjectChange } from "./project-changes.ts";
import { type ProjectRow, projects } from "./schema.ts";

/** Owner teams and their members live in the `internal` project (PROTOCOL.md §6): its users are the owners. */
export const INTERNAL_PROJECT = "internal";

export async function findProject(db: Database, projectId: string): Promise<ProjectRow | null> {
  // Ids arrive from paths and OAuth parameters; one PostgreSQL cannot even compare (a NUL byte) names no project.
  if (!isStorableText(projectId)) return null;
  const [row] = await db.select().from(projects).where(eq(projects.id, projectId)).limit(1);
  return row ?? null;
}

/** Editable project fields, in wire (snake_case) form. */
export type ProjectFieldsUpdate = {
  display_name?: string | undefined;
  description?: string | null | undefined;
  logo_url?: string | null | undefined;
  logo_full_url?: string | null | undefined;
  logo_dark_mode_url?: string | null | undefined;
  logo_full_dark_mode_url?: string | null | undefined;
  is_production_mode?: boolean | undefined;
  onboarding_status?: string | undefined;
  config?: LegacyConfigUpdate | undefined;
};

function toColumns(fields: ProjectFieldsUpdate): Partial<typeof projects.$inferInsert> {
  const columns: Partial<typeof projects.$inferInsert> = {};
  if (fields.display_name !== undefined) columns.displayName = fields.display_name;
  if (fields.description !== undefined) columns.description = fields.description ?? "";
  if (fields.logo_url !== undefined) columns.logoUrl = fields.logo_url;
  if (fields.logo_full_url !== undefined) columns.logoFullUrl = fields.logo_full_url;
  if (fields.logo_dark_mode_url !== undefined) columns.logoDarkModeUrl = fields.logo_dark_mode_url;
  if (fields.logo_full_dark_mode_url !== undefined)
    columns.logoFullDarkModeUrl = fields.logo_full_dark_mode_url;
  if (fields.is_production_mode !== undefined) columns.isProductionMode = fields.is_production_mode;
  if (fields.onboarding_status !== undefined) columns.onboardingStatus = fields.onboarding_status;
  return columns;
}

/**
 * Writes a legacy snake_case config update to the environment level. Its lists replace what the levels below set
 * (a default permission list without `team_admin` takes it away), so the patch is made against the locked levels.
 */
function writeLegacyConfig(store: ConfigStoreDeps, projectId: string, update: LegacyConfigUpdate) {
  return updateConfigOverride(store, projectId, "environment", (current, levels) => {
    const lower = mergeLevelOverrides({ project: levels.project, branch: levels.branch });
    const existing = mergeLevelOverrides({ ...levels, environment: current });
    return mergeOverrideOverride(current, legacyConfigUpdateToOverride(update, lower, existing));
  });
}

/**
 * Creates a project with the defaults of PROTOCOL.md §3.10. A legacy `config` in the request lands on the
 * environment level, like later legacy updates do, so the project level keeps the pristine defaults.
 */
export async function createProject(
  store: ConfigStoreDeps,
  input: ProjectFieldsUpdate & {
    id?: string;
    display_name: string;
    owner_team_id: string | null;
    /** An internal user who must be a member of the owner team; the team is locked as in `transferProject`. */
    ownerMemberId?: string;
    projectOverride?: ConfigOverride;
  },
): Promise<ProjectRow> {
  const id = input.id ?? randomUuid();
  await store.db.transaction(async (tx) => {
    if (input.ownerMemberId !== undefined && input.owner_team_id !== null) {
      await requireInternalTeamMember(tx as Database, input.owner_team_id, input.ownerMemberId, {
        lockTeam: true,
      });
    }
    await tx
      .insert(projects)
      .values({ id, displayName: input.display_name, ownerTeamId: input.owner_team_id, ...toColumns(input) });
    await createConfigRows(
      { ...store, db: tx as Database },
      id,
      input.projectOverride ?? newProjectOverride(),
    );
  });
  if (input.config) await writeLegacyConfig(store, id, input.config);
  return (await findProject(store.db, id))!;
}

export async function updateProject(
  store: ConfigStoreDeps,
  projectId: string,
  fields: ProjectFieldsUpdate,
): Promise<ProjectRow> {
  if (fields.config) await writeLegacyConfig(store, projectId, fields.config);
  const columns = toColumns(fields);
  if (Object.keys(columns).length > 0) {
    await store.db.update(projects).set(columns).where(eq(projects.id, projectId));
    await announceProjectChange(store.db, projectId);
  }
  return (await findProject(store.db, projectId))!;
}

export async function deleteProject(db: Database, projectId: string): Promise<void> {
  // Every other table references projects with ON DELETE CASCADE, so this removes the tenant's data too.
  await db.delete(projects).where(eq(projects.id, projectId));
  await announceProjectChange(db, projectId);
}

/**
 * Gives a project to another internal team, of which `internalUserId` must be a member. There is no foreign key from
 * the owner to the team (the owner must be a team of the `internal` project, which a key cannot say), so the team
 * row is locked FOR SHARE until the new owner is written. `deleteTeam` locks the row FOR UPDATE before it looks for
 * owned projects: whichever comes second waits, then either finds the team gone (TEAM_NOT_FOUND) or the project
 * owned (the deletion is refused). A project never ends up owned by a deleted team.
 */
export async function transferProject(
  db: Database,
  projectId: string,
  newOwnerTeamId: string,
  internalUserId: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    await requireInternalTeamMember(tx as Database, newOwnerTeamId, internalUserId, { lockTeam: true });
    await tx.update(projects).set({ ownerTeamId: newOwnerTeamId }).where(eq(projects.id, projectId));
    await announceProjectChange(tx as Database, projectId);
  });
}

/** The projects an internal user manages: those owned by any internal team they belong to, oldest first. */
export async function listManagedProjects(db: Database, internalUserId: string): Promise<ProjectRow[]> {
  // Each project has one owner team and a membership is unique per (team, user), so the join yields no duplicates.
  const rows = await db
    .select({ project: projects })
    .from(projects)
    .innerJoin(teamMembers, eq(teamMembers.teamId, projects.ownerTeamId))
    .where(and(eq(teamMembers.projectId, INTERNAL_PROJECT), eq(teamMembers.userId, internalUserId)))
    .orderBy(projects.createdAt, projects.id);
  return rows.map((row) => row.project);
}

/** The internal team, with the user's membership in it if any; null when no such internal team exists. */
export async function findInternalTeamMembership(
  db: Database,
  teamId: string,
  internalUserId: string,
  options: { lockTeam?: boolean } = {},
): Promise<{ isMember: boolean } | null> {
  const query = db
    .select({ teamId: teams.id, memberId: teamMembers.userId })
    .from(teams)
    .leftJoin(
      teamMembers,
      and(
        eq(teamMembers.projectId, INTERNAL_PROJECT),
        eq(teamMembers.teamId, teams.id),
        eq(teamMembers.userId, internalUserId),
      ),
    )
    .where(and(eq(teams.projectId, INTERNAL_PROJECT), eq(teams.id, teamId)))
    .limit(1);
  const [row] = await (options.lockTeam ? query.for("share", { of: teams }) : query);
  if (!row) return null;
  return { isMember: row.memberId !== null };
}

/**
 * TEAM_NOT_FOUND unless `teamId` is an internal team; TEAM_MEMBERSHIP_NOT_FOUND unless the user is in it. With
 * `lockTeam`, inside a transaction, the team cannot be deleted until that transaction ends.
 */
export async function requireInternalTeamMember(
  db: Database,
  teamId: string,
  internalUserId: string,
  options: { lockTeam?: boolean } = {},
): Promise<void> {
  const membership = await findInternalTeamMembership(db, teamId, internalUserId, options);
  if (!membership) throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
  if (!membership.isMember)
    throw knownError("TEAM_MEMBERSHIP_NOT_FOUND", { team_id: teamId, user_id: internalUserId });
}

/**
 * Creates a project owned by an internal team. `createProject` writes the legacy `config` after the project row, so
 * a config that fails validation would leave a half-made project behind: remove it again before reporting the error.
 */
export async function createOwnedProject(
  store: ConfigStoreDeps,
  input: ProjectFieldsUpdate & { display_name: string; owner_team_id: string },
  internalUserId: string,
): Promise<ProjectRow> {
  const id = randomUuid();
  try {
    return await createProject(store, { ...input, id, ownerMemberId: internalUserId });
  } catch (error) {
    await deleteProject(store.db, id);
    throw error;
  }
}
