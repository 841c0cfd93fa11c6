/** Email themes, templates and drafts (PROTOCOL.md §3.12), previews and the sending capacity (PROTOCOL-EXTRA). */

/** `{id}`: what creating a theme, a template or a draft answers. */
export type WireCreatedId = { id: string };

/** `GET /internal/email-themes`. */
export type WireEmailThemeList = { themes: { id: string; display_name: string }[] };

export type WireEmailTheme = { id: string; display_name: string; tsx_source: string };

/** `theme_id`: a theme, `false` for none, `null` or left out for the project's selected one. */
export type WireEmailTemplate = {
  id: string;
  display_name: string;
  tsx_source: string;
  theme_id?: string | false | null | undefined;
};

/** `GET /internal/email-templates`. */
export type WireEmailTemplateList = { templates: WireEmailTemplate[] };

/** `PATCH /internal/email-templates/{id}`: the template rendered with its new source. */
export type WireEmailTemplateSaved = { rendered_html: string };

/** `POST /internal/email-templates/{id}/send-test`: the outbox email it queued. */
export type WireTestEmailQueued = { email_id: string };

export type WireEmailDraft = {
  id: string;
  display_name: string;
  tsx_source: string;
  theme_id?: string | false | undefined;
  sent_at_millis: number | null;
};

/** `GET /internal/email-drafts`. */
export type WireEmailDraftList = { drafts: WireEmailDraft[] };

/** `POST /emails/render-email`. */
export type WireRenderedEmail = {
  html: string;
  subject?: string | undefined;
  notification_category?: string | undefined;
};

/** `POST /emails/capacity-boost`: when the boost ends (ISO 8601). */
export type WireCapacityBoost = { expires_at: string };

export type WireEmailWindowStats = { sent: number; bounced: number; marked_as_spam: number };

/** `GET /emails/delivery-info`. */
export type WireEmailDeliveryInfo = {
  stats: {
    hour: WireEmailWindowStats;
    day: WireEmailWindowStats;
    week: WireEmailWindowStats;
    month: WireEmailWindowStats;
  };
  capacity: {
    rate_per_second: number;
    boost_multiplier: number;
    penalty_factor: number;
    is_boost_active: boolean;
    /** ISO time, or null without a running boost. */
    boost_expires_at: string | null;
  };
};
