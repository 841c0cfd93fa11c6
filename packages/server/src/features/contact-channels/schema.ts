import { sql } from "drizzle-orm";
import { boolean, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";
import { userIdColumn } from "../users/schema.ts";

/**
 * A way to reach a user (PROTOCOL.md §3.6): today only email. The primary channel is the user's `primary_email`;
 * a channel `used_for_auth` can sign in (password, email code), so its value is unique among such channels.
 */
export const contactChannels = pgTable(
  "contact_channels",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    userId: userIdColumn(),
    type: text("type", { enum: ["email"] })
      .notNull()
      .default("email"),
    /** Emails are stored lower-cased and trimmed. */
    value: text("value").notNull(),
    isVerified: boolean("is_verified").notNull().default(false),
    isPrimary: boolean("is_primary").notNull().default(false),
    usedForAuth: boolean("used_for_auth").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("contact_channels_project_value_idx").on(t.projectId, t.type, t.value),
    index("contact_channels_project_user_idx").on(t.projectId, t.userId),
    uniqueIndex("contact_channels_auth_value_unique")
      .on(t.projectId, t.type, t.value)
      .where(sql`${t.usedForAuth} = true`),
    uniqueIndex("contact_channels_one_primary_unique").on(t.userId).where(sql`${t.isPrimary} = true`),
    uniqueIndex("contact_channels_user_value_unique").on(t.userId, t.type, t.value),
    // Substring search of primary emails in `GET /users?query=` (users/list.ts), scoped by project like the name's.
    index("contact_channels_project_primary_value_trgm_idx")
      .using("gin", t.projectId, t.value.op("gin_trgm_ops"))
      .where(sql`${t.isPrimary} = true`),
  ],
);

export type ContactChannelRow = typeof contactChannels.$inferSelect;
