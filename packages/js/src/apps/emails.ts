/**
 * Sending email to a project's users and reading the outbox (PROTOCOL-EXTRA §1.7-§1.9, §1.12), with the reference
 * SDK's method names and shapes: `sendEmail`, `listOutboxEmails`, `getOutboxEmail`, `updateOutboxEmail` and its
 * `pause`/`unpause`/`cancel` shorthands, `sendSignInInvitationEmail`. The server app and the admin app expose
 * them under the same names; each calls with its own access type.
 */

import type {
  WireEmailRecipient,
  WireOutboxEmail,
  WirePaginatedList,
  WireSendEmailResult,
} from "@gatehouse/shared";
import { call, type Scope, seg, withQuery } from "../objects/scope.ts";

/** Who an outbox email goes to. */
export type AdminEmailOutboxRecipient =
  | { type: "user-primary-email"; userId: string }
  | { type: "user-custom-emails"; userId: string; emails: string[] }
  | { type: "custom-emails"; emails: string[] };

export const EMAIL_OUTBOX_STATUSES = [
  "paused",
  "preparing",
  "rendering",
  "render-error",
  "scheduled",
  "queued",
  "sending",
  "server-error",
  "skipped",
  "bounced",
  "delivery-delayed",
  "sent",
  "opened",
  "clicked",
  "marked-as-spam",
] as const;
export type AdminEmailOutboxStatus = (typeof EMAIL_OUTBOX_STATUSES)[number];
export type AdminEmailOutboxSimpleStatus = "in-progress" | "ok" | "error";

/** One failed send attempt. */
export type AdminSendAttemptError = {
  attemptNumber: number;
  timestamp: string;
  externalMessage: string;
  externalDetails: Record<string, unknown>;
  internalMessage: string;
  internalDetails: Record<string, unknown>;
};

type OutboxBase = {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  tsxSource: string;
  themeId: string | null;
  to: AdminEmailOutboxRecipient;
  scheduledAt: Date;
  createdWith: "draft" | "programmatic-call";
  emailDraftId: string | null;
  emailProgrammaticCallTemplateId: string | null;
  /** With the values that carry links and codes redacted. */
  variables: Record<string, unknown>;
  isPaused: boolean;
  hasRendered: boolean;
  hasDelivered: boolean;
  sendRetries: number;
  nextSendRetryAt: Date | null;
  sendAttemptErrors: AdminSendAttemptError[] | null;
  /** Gatehouse extension: the addresses it went (or goes) to, once known. */
  recipients: string[];
  /** Gatehouse extension: what made it ("html", "template", or a built-in email such as "email_verification"). */
  kind: string;
};

type Rendered = {
  startedRenderingAt: Date;
  renderedAt: Date;
  subject: string;
  html: string | null;
  /**
   * Gatehouse extension: true in development when the email sits in the dev outbox (no SMTP server) and is shown
   * as sent, links and codes included: the developer's inbox. Otherwise the stored copy, with them redacted.
   */
  isDevInbox?: boolean;
  text: string | null;
  isTransactional: boolean;
  isHighPriority: boolean;
  notificationCategoryId: string | null;
};

type WithStatus<
  S extends AdminEmailOutboxStatus,
  Simple extends AdminEmailOutboxSimpleStatus,
  Extra = {},
> = Omit<OutboxBase, keyof Extra> & { status: S; simpleStatus: Simple } & Extra;

/** An email of the outbox; the fields beyond the common ones depend on its status. */
export type AdminEmailOutbox =
  | WithStatus<"paused", "in-progress", { isPaused: true } & Partial<Rendered>>
  | WithStatus<"preparing", "in-progress">
  | WithStatus<"rendering", "in-progress", { startedRenderingAt: Date }>
  | WithStatus<"render-error", "error", { startedRenderingAt: Date; renderedAt: Date; renderError: string }>
  | WithStatus<"scheduled" | "queued", "in-progress", Rendered & { hasRendered: true }>
  | WithStatus<"sending", "in-progress", Rendered & { hasRendered: true; startedSendingAt: Date }>
  | WithStatus<
      "server-error",
      "error",
      Rendered & { hasRendered: true; startedSendingAt: Date; errorAt: Date; serverError: string }
    >
  | WithStatus<
      "skipped",
      "ok",
      Partial<Rendered> & {
        skippedAt: Date;
        skippedReason: string;
        skippedDetails: Record<string, unknown>;
        startedSendingAt?: Date;
      }
    >
  | WithStatus<"bounced", "error", Rendered & { startedSendingAt: Date; bouncedAt: Date }>
  | WithStatus<"delivery-delayed", "ok", Rendered & { startedSendingAt: Date; deliveryDelayedAt: Date }>
  | WithStatus<
      "sent" | "opened" | "clicked" | "marked-as-spam",
      "ok",
      Rendered & {
        hasRendered: true;
        hasDelivered: true;
        startedSendingAt: Date;
        deliveredAt: Date;
        canHaveDeliveryInfo: boolean;
      }
    >;

export type ListOutboxEmailsOptions = {
  status?: AdminEmailOutboxStatus;
  simpleStatus?: AdminEmailOutboxSimpleStatus;
  /** 1-100 (the default). */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
};

export type UpdateOutboxEmailOptions = {
  isPaused?: boolean;
  scheduledAt?: Date;
  scheduledAtMillis?: number;
  /** Skips the email for good (`MANUALLY_CANCELLED`). */
  cancel?: true;
  /** Changing the content or the recipient renders the email again. */
  tsxSource?: string;
  themeId?: string | null;
  to?: AdminEmailOutboxRecipient;
  variables?: Record<string, unknown>;
};

type SendEmailOptionsBase = {
  /** A theme id, `false` for no theme, `null` or left out for the project's selected theme. */
  themeId?: string | null | false;
  /** Replaces the template's subject. */
  subject?: string;
  /** "Transactional" or "Marketing"; replaces the template's category. Marketing can be turned off by users. */
  notificationCategoryName?: string;
  /** When to send; now if left out. */
  scheduledAt?: Date;
  isHighPriority?: boolean;
};

/** Who gets it (some users or all of them) and what (raw HTML, a template with variables, or a draft). */
export type SendEmailOptions = SendEmailOptionsBase &
  ({ userIds: string[]; allUsers?: undefined } | { allUsers: true; userIds?: undefined }) &
  (
    | { html: string; templateId?: undefined; draftId?: undefined; variables?: undefined }
    | { templateId: string; variables?: Record<string, unknown>; html?: undefined; draftId?: undefined }
    | { draftId: string; html?: undefined; templateId?: undefined; variables?: undefined }
  );

const date = (millis: unknown) => new Date(millis as number);
const dateIf = (millis: unknown) => (typeof millis === "number" ? new Date(millis) : undefined);

/** An item without `to` reads as one to no custom addresses. */
function recipientFromWire(
  to: WireEmailRecipient | { type?: undefined; emails?: undefined },
): AdminEmailOutboxRecipient {
  if (to.type === "user-primary-email") return { type: to.type, userId: to.user_id };
  if (to.type === "user-custom-emails") return { type: to.type, userId: to.user_id, emails: to.emails };
  return { type: "custom-emails", emails: to.emails ?? [] };
}

function recipientToWire(to: AdminEmailOutboxRecipient): WireEmailRecipient {
  if (to.type === "custom-emails") return { type: to.type, emails: to.emails };
  return to.type === "user-primary-email"
    ? { type: to.type, user_id: to.userId }
    : { type: to.type, user_id: to.userId, emails: to.emails };
}

/** The wire item (snake_case, millis) as the SDK's object; fields a status does not have stay out. */
export function outboxEmailFromWire(item: WireOutboxEmail): AdminEmailOutbox {
  const email: Record<string, unknown> = {
    id: item.id,
    createdAt: date(item.created_at_millis),
    updatedAt: date(item.updated_at_millis),
    tsxSource: item.tsx_source ?? "",
    themeId: item.theme_id ?? null,
    to: recipientFromWire(item.to ?? {}),
    scheduledAt: date(item.scheduled_at_millis),
    createdWith: item.created_with,
    emailDraftId: item.email_draft_id ?? null,
    emailProgrammaticCallTemplateId: item.email_programmatic_call_template_id ?? null,
    variables: item.variables ?? {},
    isPaused: item.is_paused,
    hasRendered: item.has_rendered,
    hasDelivered: item.has_delivered,
    sendRetries: item.send_retries ?? 0,
    nextSendRetryAt: dateIf(item.next_send_retry_at_millis) ?? null,
    sendAttemptErrors: Array.isArray(item.send_attempt_errors)
      ? item.send_attempt_errors.map((entry) => ({
          attemptNumber: entry.attempt_number,
          timestamp: entry.timestamp,
          externalMessage: entry.external_message,
          externalDetails: entry.external_details ?? {},
          internalMessage: entry.internal_message,
          internalDetails: entry.internal_details ?? {},
        }))
      : null,
    status: item.status,
    simpleStatus: item.simple_status,
    recipients: item.recipients ?? [],
    kind: item.kind ?? "",
  };
  const optional: Record<string, unknown> = {
    startedRenderingAt: dateIf(item.started_rendering_at_millis),
    renderedAt: dateIf(item.rendered_at_millis),
    subject: item.subject,
    html: item.html,
    text: item.text,
    isDevInbox: item.is_dev_inbox,
    isTransactional: item.is_transactional,
    isHighPriority: item.is_high_priority,
    notificationCategoryId: item.notification_category_id,
    renderError: item.render_error,
    startedSendingAt: dateIf(item.started_sending_at_millis),
    errorAt: dateIf(item.error_at_millis),
    serverError: item.server_error,
    skippedAt: dateIf(item.skipped_at_millis),
    skippedReason: item.skipped_reason,
    skippedDetails: item.skipped_details,
    deliveredAt: dateIf(item.delivered_at_millis),
    canHaveDeliveryInfo: item.can_have_delivery_info,
    bouncedAt: dateIf(item.bounced_at_millis),
    deliveryDelayedAt: dateIf(item.delivery_delayed_at_millis),
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) email[key] = value;
  return email as AdminEmailOutbox;
}

function sendEmailBody(options: SendEmailOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined) body[key] = value;
  };
  set("user_ids", options.userIds);
  set("all_users", options.allUsers);
  set("html", options.html);
  set("template_id", options.templateId);
  set("draft_id", options.draftId);
  set("variables", options.variables);
  set("theme_id", options.themeId);
  set("subject", options.subject);
  set("notification_category_name", options.notificationCategoryName);
  set("scheduled_at_millis", options.scheduledAt?.getTime());
  set("is_high_priority", options.isHighPriority);
  return body;
}

function updateBody(options: UpdateOutboxEmailOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (options.isPaused !== undefined) body.is_paused = options.isPaused;
  const scheduled = options.scheduledAt?.getTime() ?? options.scheduledAtMillis;
  if (scheduled !== undefined) body.scheduled_at_millis = scheduled;
  if (options.cancel) body.cancel = true;
  if (options.tsxSource !== undefined) body.tsx_source = options.tsxSource;
  if (options.themeId !== undefined) body.theme_id = options.themeId;
  if (options.to !== undefined) body.to = recipientToWire(options.to);
  if (options.variables !== undefined) body.variables = options.variables;
  return body;
}

/** The methods, bound to one app's scope; the apps expose each under the same name. */
export function emailMethods(scope: Scope) {
  const updateOutboxEmail = async (id: string, options: UpdateOutboxEmailOptions) =>
    outboxEmailFromWire(
      await call<WireOutboxEmail>(scope, `/emails/outbox/${seg(id)}`, {
        method: "PATCH",
        body: updateBody(options),
      }),
    );
  return {
    /**
     * Queues an email per user (it is rendered and delivered in the background; follow it in the outbox). Needs
     * the project's own email server (`REQUIRES_CUSTOM_EMAIL_SERVER` otherwise); an unknown user id is
     * `USER_ID_DOES_NOT_EXIST`. Resolves with the users it was queued for.
     */
    async sendEmail(options: SendEmailOptions): Promise<{ userIds: string[] }> {
      const result = await call<WireSendEmailResult>(scope, "/emails/send-email", {
        method: "POST",
        body: sendEmailBody(options),
      });
      return { userIds: result.results.map((entry) => entry.user_id) };
    },

    /** The outbox, newest first, a page at a time. */
    async listOutboxEmails(
      options: ListOutboxEmailsOptions = {},
    ): Promise<{ items: AdminEmailOutbox[]; nextCursor: string | null }> {
      const result = await call<WirePaginatedList<WireOutboxEmail>>(
        scope,
        withQuery("/emails/outbox", {
          status: options.status,
          simple_status: options.simpleStatus,
          limit: options.limit,
          cursor: options.cursor,
        }),
      );
      return {
        items: result.items.map(outboxEmailFromWire),
        nextCursor: result.pagination?.next_cursor ?? null,
      };
    },

    async getOutboxEmail(id: string): Promise<AdminEmailOutbox> {
      return outboxEmailFromWire(await call<WireOutboxEmail>(scope, `/emails/outbox/${seg(id)}`));
    },

    /** Changes an email not sent yet; a sent or skipped one is `EMAIL_NOT_EDITABLE`. */
    updateOutboxEmail,
    pauseOutboxEmail: (id: string) => updateOutboxEmail(id, { isPaused: true }),
    unpauseOutboxEmail: (id: string) => updateOutboxEmail(id, { isPaused: false }),
    cancelOutboxEmail: (id: string) => updateOutboxEmail(id, { cancel: true }),

    /** Emails `email` an invitation to sign in at `callbackUrl` (a trusted domain's URL). */
    async sendSignInInvitationEmail(email: string, callbackUrl: string): Promise<void> {
      await call(scope, "/internal/send-sign-in-invitation", {
        method: "POST",
        body: { email, callback_url: callbackUrl },
      });
    },
  };
}
