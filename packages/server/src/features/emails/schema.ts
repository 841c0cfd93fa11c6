import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";

/**
 * Who an email goes to (PROTOCOL-EXTRA §1.8). Addresses of a user are looked up when the email is rendered, so a
 * user who changed their primary email or turned a category off since the email was queued is honoured.
 */
export type EmailRecipient =
  | { type: "user-primary-email"; user_id: string }
  | { type: "user-custom-emails"; user_id: string; emails: string[] }
  | { type: "custom-emails"; emails: string[] };

/** Why an email was not sent, though nothing failed (PROTOCOL-EXTRA §1.8). */
export type EmailSkipReason =
  | "USER_UNSUBSCRIBED"
  | "USER_ACCOUNT_DELETED"
  | "USER_HAS_NO_PRIMARY_EMAIL"
  | "NO_EMAIL_PROVIDED"
  | "MANUALLY_CANCELLED";

export type SendAttemptError = { attempt_number: number; timestamp: string; message: string };

/**
 * The outbox: every email the platform sends, with its rendering and delivery state. An email is queued as a
 * template to render (`preparing`); the worker renders it (`rendering` → `queued`, or `render_error` / `skipped`),
 * then delivers it (`sending` → `sent`, or back to `queued` with a retry time, and `failed` after the last attempt).
 * Failures are recorded, never dropped. Codes and links are never stored in the clear: the variables and the
 * message as sent are sealed, and `subject`, `html` and `text` are a redacted copy (body.ts says why and when).
 */
export const sentEmails = pgTable(
  "sent_emails",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    /** The recipient user, when the email is about a user (kept when the user is deleted, as plain history). */
    userId: uuid("user_id"),
    /** The addresses it was (or will be) sent to; empty until a user's address is looked up at render time. */
    to: jsonb("to").$type<string[]>().notNull(),
    /** Who it is for; null only on rows queued by versions before rendering moved to the worker. */
    recipient: jsonb("recipient").$type<EmailRecipient>(),
    /** The subject, HTML and plain text with codes and links replaced by `[redacted]` (body.ts); empty until rendered. */
    subject: text("subject").notNull().default(""),
    html: text("html").notNull().default(""),
    text: text("text").notNull().default(""),
    /** The template's TSX as it was when the email was queued (null: the row was queued already rendered). */
    tsxSource: text("tsx_source"),
    /** The theme to render in, resolved when queued; null renders with no theme. */
    themeId: text("theme_id"),
    /** The project template it was made from, if any (`email_programmatic_call_template_id`). */
    templateId: text("template_id"),
    /** The template's variables, sealed like the body (they hold the links and codes of the built-in emails). */
    variablesEncrypted: text("variables_encrypted"),
    /** A subject that replaces the template's own. */
    subjectOverride: text("subject_override"),
    /** Set when queued if the sender chose the category, else learned from the template when rendered. */
    notificationCategoryId: uuid("notification_category_id"),
    isHighPriority: boolean("is_high_priority").notNull().default(false),
    isTransactional: boolean("is_transactional"),
    /** Higher is sent first: 100 for high priority, plus 10 for transactional (PROTOCOL-EXTRA §1.8). */
    priority: integer("priority").notNull().default(0),
    createdWith: text("created_with", { enum: ["programmatic-call", "draft"] })
      .notNull()
      .default("programmatic-call"),
    /** The email draft it was sent from (`email_draft_id`); kept as history when the draft is deleted. */
    draftId: uuid("draft_id"),
    /** Not before this time. */
    scheduledAt: timestamp("scheduled_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** Held by an admin: neither rendered nor sent until unpaused. */
    isPaused: boolean("is_paused").notNull().default(false),
    startedRenderingAt: timestamp("started_rendering_at", { withTimezone: true, mode: "date" }),
    renderedAt: timestamp("rendered_at", { withTimezone: true, mode: "date" }),
    renderError: text("render_error"),
    skippedAt: timestamp("skipped_at", { withTimezone: true, mode: "date" }),
    skippedReason: text("skipped_reason").$type<EmailSkipReason>(),
    skippedDetails: jsonb("skipped_details").$type<Record<string, unknown>>(),
    startedSendingAt: timestamp("started_sending_at", { withTimezone: true, mode: "date" }),
    /** One entry per failed delivery attempt, oldest first. */
    sendAttemptErrors: jsonb("send_attempt_errors").$type<SendAttemptError[]>(),
    failedAt: timestamp("failed_at", { withTimezone: true, mode: "date" }),
    /**
     * The message as it is sent (subject, HTML, text), encrypted with a key derived from GATEHOUSE_SECRET. Set while
     * the row waits for delivery; null once delivered or failed for good, except in development's dev outbox.
     */
    bodyEncrypted: text("body_encrypted"),
    /** Which built-in message or template produced it, e.g. `email_verification`. */
    kind: text("kind").notNull(),
    status: text("status", {
      enum: ["preparing", "rendering", "render_error", "queued", "sending", "sent", "failed", "skipped"],
    })
      .notNull()
      .default("queued"),
    /** `smtp` or `dev-outbox`, once delivered. */
    transport: text("transport"),
    error: text("error"),
    /** Delivery attempts so far (counted when a worker claims the row). */
    attempts: integer("attempts").notNull().default(0),
    /** When a queued row is due; for a `rendering` or `sending` row, when its worker's lease runs out. */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    sentAt: timestamp("sent_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("sent_emails_project_created_idx").on(t.projectId, t.createdAt),
    // The worker's claim queries: rows to render or send that are due, and `rendering`/`sending` rows whose lease
    // ran out (a crashed worker).
    index("sent_emails_due_idx").on(t.nextAttemptAt).where(sql`${t.status} in ('queued', 'sending')`),
    index("sent_emails_render_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.status} in ('preparing', 'rendering')`),
    index("sent_emails_project_status_idx").on(t.projectId, t.status, t.createdAt),
    // Delivery stats and the capacity check (capacity.ts): a project's emails sent in a window.
    index("sent_emails_project_sent_idx").on(t.projectId, t.sentAt).where(sql`${t.status} = 'sent'`),
  ],
);

export type SentEmailRow = typeof sentEmails.$inferSelect;

/**
 * Capacity boosts (PROTOCOL-EXTRA §1.10): while one runs, a project may send four times its hourly capacity. One row
 * per activation; only the latest matters, and a new one is refused while it runs.
 */
export const emailCapacityBoosts = pgTable(
  "email_capacity_boosts",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("email_capacity_boosts_project_expires_idx").on(t.projectId, t.expiresAt)],
);
