/**
 * How outbox rows look on the wire (PROTOCOL-EXTRA §1.8-§1.9, §1.12): the status names, and the outbox item with
 * the fields each status adds. Variables are shown with their secrets redacted, like the stored message.
 */
import type { WireOutboxEmail, WireSentEmail } from "@gatehouse/shared";
import { z } from "zod";
import type { ServerEnv } from "../../env.ts";
import { openMessage, openVariables, REDACTED, redactText } from "./body.ts";
import { secretsOf } from "./built-in.ts";
import type { SentEmailRow } from "./schema.ts";

export const OUTBOX_STATUSES = [
  "paused",
  "skipped",
  "preparing",
  "rendering",
  "render-error",
  "scheduled",
  "queued",
  "sending",
  "server-error",
  "sent",
  "delivery-delayed",
  "bounced",
  "opened",
  "clicked",
  "marked-as-spam",
] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

export const SIMPLE_STATUSES = ["in-progress", "ok", "error"] as const;
export type SimpleStatus = (typeof SIMPLE_STATUSES)[number];

const SIMPLE: Record<OutboxStatus, SimpleStatus> = {
  paused: "in-progress",
  skipped: "ok",
  preparing: "in-progress",
  rendering: "in-progress",
  "render-error": "error",
  scheduled: "in-progress",
  queued: "in-progress",
  sending: "in-progress",
  "server-error": "error",
  sent: "ok",
  "delivery-delayed": "ok",
  bounced: "error",
  opened: "ok",
  clicked: "ok",
  "marked-as-spam": "ok",
};

/** The row's status on the wire, in the protocol's order of precedence (a pause wins over everything unfinished). */
export function outboxStatus(row: SentEmailRow, now = Date.now()): OutboxStatus {
  const finished = row.status === "sent" || row.status === "failed" || row.status === "skipped";
  if (row.isPaused && !finished) return "paused";
  switch (row.status) {
    case "skipped":
      return "skipped";
    case "preparing":
      return "preparing";
    case "rendering":
      return "rendering";
    case "render_error":
      return "render-error";
    case "queued":
      return row.scheduledAt.getTime() > now ? "scheduled" : "queued";
    case "sending":
      return "sending";
    case "failed":
      return "server-error";
    case "sent":
      return "sent";
  }
}

export function simpleStatus(status: OutboxStatus): SimpleStatus {
  return SIMPLE[status];
}

/** The database statuses behind a wire status, for filtering in SQL (scheduled/queued and paused need more). */
export function storedStatusesFor(status: OutboxStatus): SentEmailRow["status"][] {
  switch (status) {
    case "paused":
      return ["preparing", "rendering", "render_error", "queued", "sending"];
    case "render-error":
      return ["render_error"];
    case "scheduled":
    case "queued":
      return ["queued"];
    case "server-error":
      return ["failed"];
    case "preparing":
    case "rendering":
    case "sending":
    case "sent":
    case "skipped":
      return [status];
    default:
      // Delivery tracking (bounces, opens) is not reported by SMTP: no row is ever in these.
      return [];
  }
}

/** Variables as an admin may see them: the values that carry links and codes are redacted. */
function visibleVariables(env: Pick<ServerEnv, "secret">, row: SentEmailRow): Record<string, unknown> {
  if (!row.variablesEncrypted) return {};
  let variables: Record<string, unknown>;
  try {
    variables = openVariables(env, row.variablesEncrypted);
  } catch {
    return {};
  }
  const secrets = secretsOf(variables);
  return Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [
      name,
      typeof value === "string" ? (secrets.includes(value) ? REDACTED : redactText(value, secrets)) : value,
    ]),
  );
}

const millis = (date: Date | null) => date?.getTime() ?? null;

/**
 * What the item shows as the message. In development, an email kept in the dev outbox (no SMTP server is set, so
 * nothing was sent anywhere) shows as its recipient would have got it, links and codes included: the dashboard is
 * then the developer's inbox. Everywhere else, the redacted copy (body.ts).
 */
function shownMessage(env: Pick<ServerEnv, "secret" | "isDevelopment">, row: SentEmailRow) {
  if (env.isDevelopment && row.transport === "dev-outbox" && row.bodyEncrypted) {
    try {
      return { ...openMessage(env, row.bodyEncrypted), isDevInbox: true };
    } catch {
      // Sealed under another GATEHOUSE_SECRET: show the redacted copy.
    }
  }
  return { subject: row.subject, html: row.html, text: row.text, isDevInbox: false };
}

/** The outbox item (PROTOCOL-EXTRA §1.9). */
export function outboxItem(
  env: Pick<ServerEnv, "secret" | "isDevelopment">,
  row: SentEmailRow,
): WireOutboxEmail {
  const status = outboxStatus(row);
  const rendered = row.renderedAt !== null && row.status !== "render_error";
  const item: WireOutboxEmail = {
    id: row.id,
    created_at_millis: row.createdAt.getTime(),
    updated_at_millis: row.updatedAt.getTime(),
    tsx_source: row.tsxSource ?? "",
    theme_id: row.themeId,
    to: row.recipient ?? { type: "custom-emails", emails: row.to },
    variables: visibleVariables(env, row),
    skip_deliverability_check: true,
    scheduled_at_millis: row.scheduledAt.getTime(),
    created_with: row.createdWith,
    email_draft_id: row.draftId,
    email_programmatic_call_template_id: row.templateId,
    send_retries: Math.max(0, row.attempts - 1),
    next_send_retry_at_millis: row.status === "queued" && row.attempts > 0 ? millis(row.nextAttemptAt) : null,
    send_attempt_errors: row.sendAttemptErrors
      ? row.sendAttemptErrors.map((entry) => ({
          attempt_number: entry.attempt_number,
          timestamp: entry.timestamp,
          external_message: entry.message,
          external_details: {},
          internal_message: entry.message,
          internal_details: {},
        }))
      : null,
    status,
    simple_status: simpleStatus(status),
    is_paused: row.isPaused,
    has_rendered: rendered,
    has_delivered: row.status === "sent",
    // Gatehouse additions: the addresses it went to, and which built-in email or call made it.
    recipients: row.to,
    kind: row.kind,
  };
  if (row.startedRenderingAt) item.started_rendering_at_millis = row.startedRenderingAt.getTime();
  if (rendered) {
    const message = shownMessage(env, row);
    Object.assign(item, {
      rendered_at_millis: millis(row.renderedAt),
      subject: message.subject,
      html: message.html || null,
      text: message.text || null,
      // Gatehouse addition: true when the message is shown unredacted, as development's local inbox.
      is_dev_inbox: message.isDevInbox,
      is_transactional: row.isTransactional ?? false,
      is_high_priority: row.isHighPriority,
      notification_category_id: row.notificationCategoryId,
    } satisfies Partial<WireOutboxEmail>);
  }
  if (row.status === "render_error") {
    Object.assign(item, {
      rendered_at_millis: millis(row.renderedAt),
      render_error: row.renderError ?? "",
    } satisfies Partial<WireOutboxEmail>);
  }
  if (row.startedSendingAt) item.started_sending_at_millis = row.startedSendingAt.getTime();
  if (row.status === "failed") {
    Object.assign(item, {
      error_at_millis: millis(row.failedAt),
      server_error: row.error ?? "",
    } satisfies Partial<WireOutboxEmail>);
  }
  if (row.status === "skipped") {
    Object.assign(item, {
      skipped_at_millis: millis(row.skippedAt),
      skipped_reason: row.skippedReason,
      skipped_details: row.skippedDetails ?? {},
    } satisfies Partial<WireOutboxEmail>);
  }
  if (row.status === "sent") {
    Object.assign(item, {
      delivered_at_millis: millis(row.sentAt),
      can_have_delivery_info: false,
    } satisfies Partial<WireOutboxEmail>);
  }
  return item;
}

/** The item's schema for responses: the fixed fields checked, the status-dependent ones passed through. */
export const outboxItemSchema = z
  .object({
    id: z.string(),
    created_at_millis: z.number(),
    updated_at_millis: z.number(),
    status: z.enum(OUTBOX_STATUSES),
    simple_status: z.enum(SIMPLE_STATUSES),
    is_paused: z.boolean(),
  })
  .passthrough();

/** `GET /internal/emails` (PROTOCOL-EXTRA §1.12), with Gatehouse's delivery details beside the protocol's fields. */
export function sentEmailListItem(row: SentEmailRow): WireSentEmail {
  const status = outboxStatus(row);
  const error =
    row.status === "render_error"
      ? `Render error: ${row.renderError ?? ""}`
      : row.status === "failed" || (row.error && row.status === "queued")
        ? `Send error: ${row.error ?? ""}`
        : null;
  return {
    id: row.id,
    subject: row.subject,
    sent_at_millis: (row.sentAt ?? row.failedAt ?? row.skippedAt ?? row.createdAt).getTime(),
    to:
      row.recipient?.type === "user-primary-email" && row.to.length === 0
        ? [`User ID: ${row.recipient.user_id}`]
        : row.to,
    error,
    status,
    simple_status: simpleStatus(status),
    attempts: row.attempts,
    skipped_reason: row.skippedReason,
    created_at_millis: row.createdAt.getTime(),
    kind: row.kind,
  };
}
