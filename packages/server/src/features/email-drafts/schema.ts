import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";

/**
 * An email draft (PROTOCOL-EXTRA §1.5): TSX written once and sent by hand with `send-email {draft_id}`. Unlike
 * templates, drafts live in the database, not in the config: they are many, edited often and marked when sent.
 */
export const emailDrafts = pgTable(
  "email_drafts",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    displayName: text("display_name").notNull(),
    tsxSource: text("tsx_source").notNull(),
    /**
     * The theme to send it in: `project-default` (the selected theme at send time), `none`, or `custom` (the theme
     * in `theme_id`).
     */
    themeMode: text("theme_mode", { enum: ["project-default", "none", "custom"] })
      .notNull()
      .default("project-default"),
    themeId: uuid("theme_id"),
    /** When it was last sent with `send-email {draft_id}`. */
    sentAt: timestamp("sent_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("email_drafts_project_updated_idx").on(t.projectId, t.updatedAt)],
);

export type EmailDraftRow = typeof emailDrafts.$inferSelect;
