import { foreignKey, index, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";
import { teamMembers } from "../teams/schema.ts";
import { userIdColumn } from "../users/schema.ts";

/**
 * A team permission granted directly to a member (PROTOCOL.md §3.11). Definitions live in the project config
 * (`rbac.permissions`); a row here only says "this member holds this id in this team". Contained permissions are
 * derived when reading, never stored. The grant hangs off the membership, so leaving the team drops it.
 */
export const teamPermissionGrants = pgTable(
  "team_permission_grants",
  {
    projectId: projectIdColumn(),
    teamId: uuid("team_id").notNull(),
    userId: uuid("user_id").notNull(),
    permissionId: text("permission_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.userId, t.permissionId] }),
    foreignKey({
      name: "team_permission_grants_membership_fk",
      columns: [t.teamId, t.userId],
      foreignColumns: [teamMembers.teamId, teamMembers.userId],
    }).onDelete("cascade"),
    index("team_permission_grants_project_user_idx").on(t.projectId, t.userId),
    index("team_permission_grants_project_permission_idx").on(t.projectId, t.permissionId),
  ],
);

/** A project-wide permission granted directly to a user. */
export const projectPermissionGrants = pgTable(
  "project_permission_grants",
  {
    projectId: projectIdColumn(),
    userId: userIdColumn(),
    permissionId: text("permission_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.permissionId] }),
    index("project_permission_grants_project_permission_idx").on(t.projectId, t.permissionId),
  ],
);

export type TeamPermissionGrantRow = typeof teamPermissionGrants.$inferSelect;
export type ProjectPermissionGrantRow = typeof projectPermissionGrants.$inferSelect;
