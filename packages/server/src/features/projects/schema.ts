import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * A tenant. Every other table carries `project_id` and every query filters by it.
 * The id is a UUID, or the literal `internal` for the dashboard's own project.
 */
export const projects = pgTable(
  "projects",
  {
    id: text("id").primaryKey(),
    displayName: text("display_name").notNull(),
    description: text("description").notNull().default(""),
    logoUrl: text("logo_url"),
    logoFullUrl: text("logo_full_url"),
    logoDarkModeUrl: text("logo_dark_mode_url"),
    logoFullDarkModeUrl: text("logo_full_dark_mode_url"),
    isProductionMode: boolean("is_production_mode").notNull().default(false),
    /** A team of the `internal` project whose members manage this project. */
    ownerTeamId: uuid("owner_team_id"),
    onboardingStatus: text("onboarding_status").notNull().default("completed"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("projects_owner_team_id_idx").on(t.ownerTeamId)],
);

/** One stored override per config level (PROTOCOL.md §9); the rendered config is defaults + project + branch + environment. */
export const projectConfigOverrides = pgTable(
  "project_config_overrides",
  {
    projectId: projectIdColumn(),
    branchId: text("branch_id").notNull().default("main"),
    level: text("level", { enum: ["project", "branch", "environment"] }).notNull(),
    override: jsonb("override").notNull().default(sql`'{}'::jsonb`),
    /** Where a branch-level config came from (`PUT .../branch` with `source`). */
    source: jsonb("source"),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.branchId, t.level] })],
);

export type ProjectRow = typeof projects.$inferSelect;

/**
 * The tenancy column every project-scoped table starts with (`project_id`): deleting the project deletes the row.
 * One definition, so that no table forgets the cascade.
 */
export function projectIdColumn() {
  return text("project_id")
    .notNull()
    .references(() => projects.id, { onDelete: "cascade" });
}
