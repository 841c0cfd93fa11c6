import { boolean, pgTable, primaryKey, timestamp, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";
import { userIdColumn } from "../users/schema.ts";

/**
 * A user's choice for one notification category (PROTOCOL.md §3.13). Only choices are stored: a category without a
 * row here has its default (every category is on by default).
 */
export const notificationPreferences = pgTable(
  "notification_preferences",
  {
    projectId: projectIdColumn(),
    userId: userIdColumn(),
    categoryId: uuid("category_id").notNull(),
    enabled: boolean("enabled").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.categoryId] })],
);

export type NotificationPreferenceRow = typeof notificationPreferences.$inferSelect;
