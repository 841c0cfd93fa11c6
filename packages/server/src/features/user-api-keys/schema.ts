import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";
import { teams } from "../teams/schema.ts";
import { users } from "../users/schema.ts";

/**
 * A user or team API key (PROTOCOL.md §3.8). The key itself is never stored: only its SHA-256 (looked up by the
 * check endpoint) and its last four characters (shown in listings). Exactly one owner column is set, matching
 * `type`; the key is deleted with its owner.
 */
export const userTeamApiKeys = pgTable(
  "user_team_api_keys",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    type: text("type", { enum: ["user", "team"] }).notNull(),
    userId: uuid("user_id").references(() => users.id, { onDelete: "cascade" }),
    teamId: uuid("team_id").references(() => teams.id, { onDelete: "cascade" }),
    description: text("description").notNull(),
    isPublic: boolean("is_public").notNull().default(false),
    keyHash: text("key_hash").notNull(),
    lastFour: text("last_four").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    manuallyRevokedAt: timestamp("manually_revoked_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("user_team_api_keys_hash_unique").on(t.projectId, t.keyHash),
    index("user_team_api_keys_user_idx").on(t.projectId, t.userId, t.createdAt),
    index("user_team_api_keys_team_idx").on(t.projectId, t.teamId, t.createdAt),
    check(
      "user_team_api_keys_owner_matches_type",
      sql`(${t.type} = 'user' and ${t.userId} is not null and ${t.teamId} is null) or (${t.type} = 'team' and ${t.teamId} is not null and ${t.userId} is null)`,
    ),
  ],
);

export type UserTeamApiKeyRow = typeof userTeamApiKeys.$inferSelect;
