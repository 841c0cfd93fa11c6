/**
 * Email drafts (PROTOCOL-EXTRA §1.5) for the admin app, and delivery info and capacity boosts (§1.10) for the
 * server app (so the admin app too), with the reference SDK's method names: `listEmailDrafts`, `createEmailDraft`,
 * `updateEmailDraft`, `deleteEmailDraft`, `getEmailDeliveryInfo` (also `getEmailDeliveryStats`, the reference's
 * later name) and `activateEmailCapacityBoost`. Gatehouse extension: `getEmailDraft`. A draft is sent with
 * `sendEmail({ draftId, ... })`.
 */

import type {
  WireCapacityBoost,
  WireCreatedId,
  WireEmailDeliveryInfo,
  WireEmailDraft,
  WireEmailDraftList,
} from "@gatehouse/shared";
import { call, dateOrNull, type Scope, seg } from "../objects/scope.ts";

export type AdminEmailDraft = {
  id: string;
  displayName: string;
  tsxSource: string;
  /** A theme id, `false` for no theme, undefined for the project's selected theme. */
  themeId: string | false | undefined;
  /** When it was last sent with `sendEmail({ draftId })`; null if never. */
  sentAt: Date | null;
};

export type EmailDraftCreateOptions = {
  displayName: string;
  /** A theme id, or `false` for none; left out, the project's selected theme. */
  themeId?: string | false | undefined;
  /** Left out: a starter draft in the Marketing category. */
  tsxSource?: string;
};

/** As on the wire, leaving `themeId` out sets the draft back to the project's selected theme. */
export type EmailDraftUpdateOptions = Partial<EmailDraftCreateOptions>;

/** The wire's shape, as the reference SDK returns it (snake_case). */
export type EmailDeliveryInfo = WireEmailDeliveryInfo;

function draftFromWire(item: WireEmailDraft): AdminEmailDraft {
  return {
    id: item.id,
    displayName: item.display_name,
    tsxSource: item.tsx_source,
    themeId: item.theme_id === undefined || item.theme_id === null ? undefined : item.theme_id,
    sentAt: dateOrNull(item.sent_at_millis),
  };
}

function draftBody(options: EmailDraftUpdateOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (options.displayName !== undefined) body.display_name = options.displayName;
  if (options.themeId !== undefined) body.theme_id = options.themeId;
  if (options.tsxSource !== undefined) body.tsx_source = options.tsxSource;
  return body;
}

/** The draft methods, bound to the admin scope of one project. */
export function emailDraftMethods(scope: Scope) {
  return {
    /** Most recently edited first. */
    async listEmailDrafts(): Promise<AdminEmailDraft[]> {
      const result = await call<WireEmailDraftList>(scope, "/internal/email-drafts");
      return result.drafts.map(draftFromWire);
    },

    async getEmailDraft(id: string): Promise<AdminEmailDraft> {
      return draftFromWire(await call<WireEmailDraft>(scope, `/internal/email-drafts/${seg(id)}`));
    },

    async createEmailDraft(options: EmailDraftCreateOptions): Promise<{ id: string }> {
      const result = await call<WireCreatedId>(scope, "/internal/email-drafts", {
        method: "POST",
        body: draftBody(options),
      });
      return { id: result.id };
    },

    async updateEmailDraft(id: string, options: EmailDraftUpdateOptions): Promise<void> {
      await call(scope, `/internal/email-drafts/${seg(id)}`, { method: "PATCH", body: draftBody(options) });
    },

    async deleteEmailDraft(id: string): Promise<void> {
      await call(scope, `/internal/email-drafts/${seg(id)}`, { method: "DELETE" });
    },
  };
}

/** Delivery info and boosts, bound to a server or admin scope. */
export function emailCapacityMethods(scope: Scope) {
  const getEmailDeliveryInfo = async (): Promise<EmailDeliveryInfo> =>
    call<WireEmailDeliveryInfo>(scope, "/emails/delivery-info");
  return {
    getEmailDeliveryInfo,
    getEmailDeliveryStats: getEmailDeliveryInfo,

    /**
     * Four times the sending rate for four hours. While one runs, this throws the known error
     * EMAIL_CAPACITY_BOOST_ALREADY_ACTIVE (with the running boost's end).
     */
    async activateEmailCapacityBoost(): Promise<{ expiresAt: Date }> {
      const result = await call<WireCapacityBoost>(scope, "/emails/capacity-boost", { method: "POST" });
      return { expiresAt: new Date(result.expires_at) };
    },
  };
}
