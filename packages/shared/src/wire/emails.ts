/** Sending email and the outbox (PROTOCOL-EXTRA §1.7-§1.9), templates and themes (PROTOCOL.md §3.12). */

export type WireEmailRecipient =
  | { type: "user-primary-email"; user_id: string }
  | { type: "user-custom-emails"; user_id: string; emails: string[] }
  | { type: "custom-emails"; emails: string[] };

export type WireOutboxStatus =
  | "paused"
  | "preparing"
  | "rendering"
  | "render-error"
  | "scheduled"
  | "queued"
  | "sending"
  | "server-error"
  | "skipped"
  | "bounced"
  | "delivery-delayed"
  | "sent"
  | "opened"
  | "clicked"
  | "marked-as-spam";

export type WireOutboxSimpleStatus = "in-progress" | "ok" | "error";

export type WireEmailSkipReason =
  | "USER_UNSUBSCRIBED"
  | "USER_ACCOUNT_DELETED"
  | "USER_HAS_NO_PRIMARY_EMAIL"
  | "NO_EMAIL_PROVIDED"
  | "MANUALLY_CANCELLED";

export type WireSendAttemptError = {
  attempt_number: number;
  timestamp: string;
  external_message: string;
  external_details: Record<string, unknown>;
  internal_message: string;
  internal_details: Record<string, unknown>;
};

/** An outbox item: the fields every status has, then the ones a status adds (left out otherwise). */
export type WireOutboxEmail = {
  id: string;
  created_at_millis: number;
  updated_at_millis: number;
  tsx_source: string;
  theme_id: string | null;
  to: WireEmailRecipient;
  variables: Record<string, unknown>;
  skip_deliverability_check: boolean;
  scheduled_at_millis: number;
  created_with: "programmatic-call" | "draft";
  email_draft_id: string | null;
  email_programmatic_call_template_id: string | null;
  send_retries: number;
  next_send_retry_at_millis: number | null;
  send_attempt_errors: WireSendAttemptError[] | null;
  status: WireOutboxStatus;
  simple_status: WireOutboxSimpleStatus;
  is_paused: boolean;
  has_rendered: boolean;
  has_delivered: boolean;
  /** Gatehouse: the addresses it went to, and which built-in email or call made it. */
  recipients: string[];
  kind: string;
  started_rendering_at_millis?: number;
  rendered_at_millis?: number | null;
  subject?: string | null;
  html?: string | null;
  text?: string | null;
  /** Gatehouse: true when the message is shown unredacted, as development's local inbox. */
  is_dev_inbox?: boolean;
  is_transactional?: boolean;
  is_high_priority?: boolean;
  notification_category_id?: string | null;
  render_error?: string;
  started_sending_at_millis?: number;
  error_at_millis?: number | null;
  server_error?: string;
  skipped_at_millis?: number | null;
  skipped_reason?: WireEmailSkipReason | null;
  skipped_details?: Record<string, unknown>;
  delivered_at_millis?: number | null;
  can_have_delivery_info?: boolean;
  bounced_at_millis?: number | null;
  delivery_delayed_at_millis?: number | null;
};

/** `POST /emails/send-email`: the users it was queued for. */
export type WireSendEmailResult = { results: { user_id: string }[] };

/** A user's choice for one notification category (PROTOCOL.md §3.13). */
export type WireNotificationPreference = {
  notification_category_id: string;
  notification_category_name: string;
  enabled: boolean;
  can_disable: boolean;
};

/** An item of `GET /internal/emails` (PROTOCOL-EXTRA §1.12), with Gatehouse's delivery details. */
export type WireSentEmail = {
  id: string;
  subject: string;
  sent_at_millis: number;
  to: string[];
  error: string | null;
  status: WireOutboxStatus;
  simple_status: WireOutboxSimpleStatus;
  attempts: number;
  skipped_reason: WireEmailSkipReason | null;
  created_at_millis: number;
  kind: string;
};

/** `POST /internal/send-test-email`: a failure to reach the email server is an answer, not an error. */
export type WireTestEmailResult = { success: boolean; error_message?: string | undefined };

/**
 * Gatehouse's `GET /internal/dev-inbox`: on a development server with no email server, the mail the dashboard sent
 * to the signed-in owner (the internal project's verification, sign-in and reset emails), as they would have read it.
 */
export type WireDevInboxEmail = {
  id: string;
  subject: string;
  to: string[];
  text: string;
  html: string;
  kind: string;
  created_at_millis: number;
};
export type WireDevInbox = {
  /** False on a production server or one with an email server: the mail went out, and nothing is shown here. */
  is_available: boolean;
  items: WireDevInboxEmail[];
};
