import { eq, inArray } from "drizzle-orm";
import {
  type ConfigOverride,
  type LegacyConfigUpdate,
  legacyConfigUpdateToOverride,
  newProjectOverride,
} from "../../config/index.ts";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { teamMembers } from "../teams/schema.ts";
import { createConfigRows, patchConfigOverride } from "./config-store.ts";
import { type ProjectRow, projects } from "./schema.ts";

export async function findProject(db: Database, projectId: string): Promise<ProjectRow | null> {
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
 * Creates a project with the defaults of PROTOCOL.md §3.10. A legacy `config` in the request lands on the
 * environment level, like later legacy updates do, so the project level keeps the pristine defaults.
 */
export async function createProject(
  db: Database,
  input: ProjectFieldsUpdate & {
    id?: string;
    display_name: string;
    owner_team_id: string | null;
    projectOverride?: ConfigOverride;
  },
): Promise<ProjectRow> {
  const id = input.id ?? randomUuid();
  await db.transaction(async (tx) => {
    await tx
      .insert(projects)
      .values({ id, displayName: input.display_name, ownerTeamId: input.owner_team_id, ...toColumns(input) });
    await createConfigRows(tx as Database, id, input.projectOverride ?? newProjectOverride());
  });
  if (input.config)
    await patchConfigOverride(db, id, "environment", legacyConfigUpdateToOverride(input.config));
  return (await findProject(db, id))!;
}

export async function updateProject(
  db: Database,
  projectId: string,
  fields: ProjectFieldsUpdate,
): Promise<ProjectRow> {
  if (fields.config)
    await patchConfigOverride(db, projectId, "environment", legacyConfigUpdateToOverride(fields.config));
  const columns = toColumns(fields);
  if (Object.keys(columns).length > 0)
    await db.update(projects).set(columns).where(eq(projects.id, projectId));
  return (await findProject(db, projectId))!;
}

export async function deleteProject(db: Database, projectId: string): Promise<void> {
  // Every other table references projects with ON DELETE CASCADE, so this removes the tenant's data too.
  await db.delete(projects).where(eq(projects.id, projectId));
}

export async function transferProject(
  db: Database,
  projectId: string,
  newOwnerTeamId: string,
): Promise<void> {
  await db.update(projects).set({ ownerTeamId: newOwnerTeamId }).where(eq(projects.id, projectId));
}

/** The projects an internal user manages: those owned by any internal team they belong to. */
export async function listManagedProjects(db: Database, internalUserId: string): Promise<ProjectRow[]> {
  const memberships = await db
    .select({ teamId: teamMembers.teamId })
    .from(teamMembers)
    .where(eq(teamMembers.userId, internalUserId));
  if (memberships.length === 0) return [];
  return db
    .select()
    .from(projects)
    .where(
      inArray(
        projects.ownerTeamId,
        memberships.map((m) => m.teamId),
      ),
    )
    .orderBy(projects.createdAt);
}
