import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import type { EndUserGeo } from "../../net/ip-info.ts";
import { projectIdColumn } from "../projects/schema.ts";
import { userIdColumn } from "../users/schema.ts";

/**
 * A session is one refresh token (PROTOCOL.md §3.7, §5.3). Only its SHA-256 is stored; the row id is the
 * `refresh_token_id` claim of every access token minted from it.
 */
export const sessions = pgTable(
  "sessions",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    userId: userIdColumn(),
    refreshTokenHash: text("refresh_token_hash").notNull(),
    isImpersonation: boolean("is_impersonation").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastUsedIp: text("last_used_ip"),
    /**
     * Where a trusted proxy said the session was last used from (GATEHOUSE_TRUST_PROXY, http/client-geo.ts); null
     * when it said nothing, and the country of `last_used_ip` is shown instead. Written with `last_used_ip`.
     */
    lastUsedGeo: jsonb("last_used_geo").$type<EndUserGeo>(),
    /** The browser's `user-agent` at sign-in and at the last refresh (at most 512 characters): "Chrome on macOS". */
    lastUsedUserAgent: text("last_used_user_agent"),
  },
  (t) => [
    uniqueIndex("sessions_refresh_token_hash_unique").on(t.refreshTokenHash),
    index("sessions_project_user_idx").on(t.projectId, t.userId, t.createdAt),
  ],
);

export type SessionRow = typeof sessions.$inferSelect;
