import { index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";
import { userIdColumn } from "../users/schema.ts";
import { verificationCodes } from "../verification-codes/schema.ts";

/** A team of a project (PROTOCOL.md §3.3). Teams of the `internal` project own projects. */
export const teams = pgTable(
  "teams",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    displayName: text("display_name").notNull(),
    profileImageUrl: text("profile_image_url"),
    clientMetadata: jsonb("client_metadata"),
    clientReadOnlyMetadata: jsonb("client_read_only_metadata"),
    serverMetadata: jsonb("server_metadata"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("teams_project_created_idx").on(t.projectId, t.createdAt)],
);

/** Membership of a user in a team, with the member's own profile inside that team (PROTOCOL.md §3.4). */
export const teamMembers = pgTable(
  "team_members",
  {
    projectId: projectIdColumn(),
    teamId: uuid("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    userId: userIdColumn(),
    displayName: text("display_name"),
    profileImageUrl: text("profile_image_url"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.userId] }),
    index("team_members_project_user_idx").on(t.projectId, t.userId),
  ],
);

export type TeamRow = typeof teams.$inferSelect;
export type TeamMemberRow = typeof teamMembers.$inferSelect;

/**
 * An open invitation to join a team (PROTOCOL.md §3.5). The secret is the verification code it points to; this row
 * only says whom the invitation is for, so that teams and recipients can list and revoke it. Accepting deletes it.
 */
export const teamInvitations = pgTable(
  "team_invitations",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    teamId: uuid("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    /** Normalised (trimmed, lower-cased) like every stored email. */
    recipientEmail: text("recipient_email").notNull(),
    codeId: uuid("code_id")
      .notNull()
      .references(() => verificationCodes.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    index("team_invitations_project_team_idx").on(t.projectId, t.teamId),
    index("team_invitations_project_email_idx").on(t.projectId, t.recipientEmail),
    index("team_invitations_code_idx").on(t.codeId),
  ],
);

export type TeamInvitationRow = typeof teamInvitations.$inferSelect;
