import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { projects } from "../projects/schema.ts";

/**
 * The outbox: every email the platform sends, rendered, with its delivery state. A worker delivers queued rows;
 * failures are recorded and retried with backoff, never dropped. The dashboard lists these as "sent emails".
 * Codes and links are never stored in the clear: `subject`, `html` and `text` are a redacted copy, and the message
 * as sent is kept encrypted only until it is delivered (body.ts says why and when).
 */
export const sentEmails = pgTable(
  "sent_emails",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    id: uuid("id").primaryKey(),
    /** The recipient user, when the email is about a user (kept when the user is deleted, as plain history). */
    userId: uuid("user_id"),
    to: jsonb("to").$type<string[]>().notNull(),
    /** The subject, HTML and plain text with codes and links replaced by `[redacted]` (body.ts). */
    subject: text("subject").notNull(),
    html: text("html").notNull(),
    text: text("text").notNull(),
    /**
     * The message as it is sent (subject, HTML, text), encrypted with a key derived from GATEHOUSE_SECRET. Set while
     * the row waits for delivery; null once delivered or failed for good, except in development's dev outbox.
     */
    bodyEncrypted: text("body_encrypted"),
    /** Which built-in message or template produced it, e.g. `email_verification`. */
    kind: text("kind").notNull(),
    status: text("status", { enum: ["queued", "sending", "sent", "failed"] })
      .notNull()
      .default("queued"),
    /** `smtp` or `dev-outbox`, once delivered. */
    transport: text("transport"),
    error: text("error"),
    /** Delivery attempts so far (counted when a worker claims the row). */
    attempts: integer("attempts").notNull().default(0),
    /** When a queued row is due; for a `sending` row, when its worker's lease runs out. */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    sentAt: timestamp("sent_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("sent_emails_project_created_idx").on(t.projectId, t.createdAt),
    // The worker's claim query: queued rows that are due, and `sending` rows whose lease ran out (crashed worker).
    index("sent_emails_due_idx").on(t.nextAttemptAt).where(sql`${t.status} in ('queued', 'sending')`),
  ],
);

export type SentEmailRow = typeof sentEmails.$inferSelect;
