import type {
  WireAdminProject,
  WireInternalApiKey,
  WireList,
  WireSentEmail,
  WireTestEmailResult,
} from "@gatehouse/shared";
import type { AccessType } from "../http/api-client.ts";
import { type AdminProject, adminProjectFromJson } from "../objects/admin-projects.ts";
import {
  createInternalApiKey,
  type InternalApiKey,
  type InternalApiKeyCreateOptions,
  type InternalApiKeyFirstView,
  internalApiKeyFromJson,
} from "../objects/internal-api-keys.ts";
import { permissionDefinitions } from "../objects/permission-definitions.ts";
import { call, type Scope } from "../objects/scope.ts";
import type { Session } from "../session/session.ts";
import { Result } from "../utils/result.ts";
import { aiMethods } from "./admin-ai.ts";
import { adminCustomerMethods } from "./admin-customers.ts";
import { emailDraftMethods } from "./admin-email-drafts.ts";
import { emailTemplateMethods } from "./admin-email-templates.ts";
import { metricsMethods } from "./admin-metrics.ts";
import { paymentAdminMethods } from "./admin-payments.ts";
import { signUpRuleMethods } from "./admin-sign-up-rules.ts";
import { adminUserMethods } from "./admin-users.ts";
import { adminWebhookPortal, type WebhookPortal } from "./admin-webhook-portal.ts";
import { webhookMethods } from "./admin-webhooks.ts";
import { gatehouseInternals } from "./client-app.ts";
import type { AppContext } from "./context.ts";
import type { AdminEmailOutboxSimpleStatus, AdminEmailOutboxStatus } from "./emails.ts";
import type { AdminAppOptions } from "./options.ts";
import { GatehouseServerApp } from "./server-app.ts";

export type AdminSentEmail = {
  id: string;
  to: string[];
  subject: string;
  /** The first of `to`, for display. */
  recipient: string;
  /** When it was sent, failed for good or was skipped; its creation time while it is on its way. */
  sentAt: Date;
  /** "Render error: …" or "Send error: …" (the last attempt's, also while a retry is due). */
  error?: unknown;
  // Gatehouse extensions: where the email is in the outbox (PROTOCOL-EXTRA §1.8) and what made it.
  status: AdminEmailOutboxStatus;
  simpleStatus: AdminEmailOutboxSimpleStatus;
  /** Delivery attempts so far. */
  attempts: number;
  /** Why it was not sent, for a skipped email (e.g. `USER_UNSUBSCRIBED`). */
  skippedReason: string | null;
  createdAt: Date;
  kind: string;
};

export type EmailServerConfig = {
  host: string;
  port: number;
  username: string;
  password: string;
  senderEmail: string;
  senderName: string;
};

/**
 * The SDK for project owners: with the super secret admin key, or with `projectOwnerSession` (an internal-project
 * user's session, PROTOCOL.md §6). Project settings, config overrides, keys, emails, permission definitions.
 * `StackAdminApp` is the same class.
 */
export class GatehouseAdminApp extends GatehouseServerApp {
  constructor(options: AdminAppOptions) {
    super(options);
  }

  protected override accessKind(): AccessType {
    return "admin";
  }

  private get adminScope(): Scope {
    return { ctx: this.ctx, accessType: "admin", session: null };
  }

  /** The project with its settings and the calls to change them. */
  override getProject(): Promise<AdminProject> {
    return this.ctx
      .cache("adminProject", async () =>
        adminProjectFromJson(
          this.adminScope,
          await call<WireAdminProject>(this.adminScope, "/internal/projects/current"),
        ),
      )
      .get([]);
  }

  async listInternalApiKeys(): Promise<InternalApiKey[]> {
    const result = await call<WireList<WireInternalApiKey>>(this.adminScope, "/internal/api-keys");
    return result.items.map((item) => internalApiKeyFromJson(this.adminScope, item));
  }

  createInternalApiKey(options: InternalApiKeyCreateOptions): Promise<InternalApiKeyFirstView> {
    return createInternalApiKey(this.adminScope, options);
  }

  /** Emails the project sent (its outbox), newest first. */
  async listSentEmails(): Promise<AdminSentEmail[]> {
    const result = await call<WireList<WireSentEmail>>(this.adminScope, "/internal/emails");
    return result.items.map((item) => ({
      id: item.id,
      to: Array.isArray(item.to) ? item.to : [item.to].filter(Boolean),
      subject: item.subject,
      // Still queued emails have no send time yet; their creation time stands in.
      sentAt: new Date(item.sent_at_millis ?? item.created_at_millis),
      ...(item.error != null ? { error: item.error } : {}),
      recipient: (Array.isArray(item.to) ? item.to[0] : item.to) ?? "",
      status: item.status,
      simpleStatus: item.simple_status,
      attempts: item.attempts ?? 0,
      skippedReason: item.skipped_reason ?? null,
      createdAt: new Date(item.created_at_millis ?? item.sent_at_millis),
      kind: item.kind ?? "",
    }));
  }

  /** Tries an email server; a failure comes back with the server's error message. */
  async sendTestEmail(options: {
    recipientEmail: string;
    emailConfig: EmailServerConfig;
  }): Promise<Result<undefined, { errorMessage: string }>> {
    const { emailConfig } = options;
    const result = await call<WireTestEmailResult>(this.adminScope, "/internal/send-test-email", {
      method: "POST",
      body: {
        recipient_email: options.recipientEmail,
        email_config: {
          host: emailConfig.host,
          port: emailConfig.port,
          username: emailConfig.username,
          password: emailConfig.password,
          sender_email: emailConfig.senderEmail,
          sender_name: emailConfig.senderName,
        },
      },
    });
    return result.success === true
      ? Result.ok(undefined)
      : Result.error({ errorMessage: String(result.error_message ?? "Unknown error") });
  }

  // --- Permission definitions ---

  listTeamPermissionDefinitions = () => permissionDefinitions(this.adminScope, "team").list();
  createTeamPermissionDefinition = (
    options: Parameters<ReturnType<typeof permissionDefinitions>["create"]>[0],
  ) => permissionDefinitions(this.adminScope, "team").create(options);
  updateTeamPermissionDefinition = (
    id: string,
    options: Parameters<ReturnType<typeof permissionDefinitions>["update"]>[1],
  ) => permissionDefinitions(this.adminScope, "team").update(id, options);
  deleteTeamPermissionDefinition = (id: string) => permissionDefinitions(this.adminScope, "team").delete(id);
  listProjectPermissionDefinitions = () => permissionDefinitions(this.adminScope, "project").list();
  createProjectPermissionDefinition = (
    options: Parameters<ReturnType<typeof permissionDefinitions>["create"]>[0],
  ) => permissionDefinitions(this.adminScope, "project").create(options);
  updateProjectPermissionDefinition = (
    id: string,
    options: Parameters<ReturnType<typeof permissionDefinitions>["update"]>[1],
  ) => permissionDefinitions(this.adminScope, "project").update(id, options);
  deleteProjectPermissionDefinition = (id: string) =>
    permissionDefinitions(this.adminScope, "project").delete(id);

  // --- Email themes and templates (admin-email-templates.ts) ---

  private readonly emailTemplates = emailTemplateMethods(this.adminScope);
  listEmailThemes = this.emailTemplates.listEmailThemes;
  createEmailTheme = this.emailTemplates.createEmailTheme;
  getEmailTheme = this.emailTemplates.getEmailTheme;
  updateEmailTheme = this.emailTemplates.updateEmailTheme;
  deleteEmailTheme = this.emailTemplates.deleteEmailTheme;
  resetEmailTheme = this.emailTemplates.resetEmailTheme;
  listEmailTemplates = this.emailTemplates.listEmailTemplates;
  createEmailTemplate = this.emailTemplates.createEmailTemplate;
  updateEmailTemplate = this.emailTemplates.updateEmailTemplate;
  deleteEmailTemplate = this.emailTemplates.deleteEmailTemplate;
  resetEmailTemplate = this.emailTemplates.resetEmailTemplate;
  sendEmailTemplateTest = this.emailTemplates.sendEmailTemplateTest;
  getEmailPreview = this.emailTemplates.getEmailPreview;
  renderEmailPreview = this.emailTemplates.renderEmailPreview;

  // --- Email drafts (admin-email-drafts.ts) ---

  private readonly emailDrafts = emailDraftMethods(this.adminScope);
  listEmailDrafts = this.emailDrafts.listEmailDrafts;
  getEmailDraft = this.emailDrafts.getEmailDraft;
  createEmailDraft = this.emailDrafts.createEmailDraft;
  updateEmailDraft = this.emailDrafts.updateEmailDraft;
  deleteEmailDraft = this.emailDrafts.deleteEmailDraft;

  // --- Webhooks (admin-webhooks.ts) ---

  private readonly webhooks = webhookMethods(this.adminScope);
  getSvixToken = this.webhooks.getSvixToken;
  sendTestWebhook = this.webhooks.sendTestWebhook;
  /** The webhook portal's API: endpoints, secrets, deliveries (admin-webhook-portal.ts). */
  readonly webhookPortal: WebhookPortal = adminWebhookPortal(this.adminScope);

  // --- Metrics (admin-metrics.ts) ---

  getMetrics = metricsMethods(this.adminScope).getMetrics;

  // --- Payments (admin-payments.ts); the catalogue itself is config ---

  private readonly payments = paymentAdminMethods(this.adminScope);
  listTransactions = this.payments.listTransactions;
  setupPayments = this.payments.setupPayments;
  getStripeAccountInfo = this.payments.getStripeAccountInfo;
  createStripeWidgetAccountSession = this.payments.createStripeWidgetAccountSession;

  // --- Any customer's items and subscriptions (admin-customers.ts) ---

  private readonly customers = adminCustomerMethods(this.adminScope);
  changeItemQuantity = this.customers.changeItemQuantity;
  cancelCustomerSubscription = this.customers.cancelCustomerSubscription;

  // --- The users list with Gatehouse's filters (admin-users.ts) ---

  filterUsers = adminUserMethods(this.adminScope).filterUsers;

  // --- Sign-up rules (admin-sign-up-rules.ts); the rules themselves are config ---

  private readonly signUpRules = signUpRuleMethods(this.adminScope);
  testSignUpRules = this.signUpRules.testSignUpRules;
  getSignUpRulesStats = this.signUpRules.getSignUpRulesStats;

  // --- The AI helper (admin-ai.ts) ---

  private readonly ai = aiMethods(this.adminScope);
  getAiStatus = this.ai.getAiStatus;
  askAi = this.ai.askAi;
  streamAi = this.ai.streamAi;
  getAiThread = this.ai.getAiThread;
  appendAiThreadMessage = this.ai.appendAiThreadMessage;
  listAiConversations = this.ai.listAiConversations;
  createAiConversation = this.ai.createAiConversation;
  getAiConversation = this.ai.getAiConversation;
  renameAiConversation = this.ai.renameAiConversation;
  saveAiConversationMessages = this.ai.saveAiConversationMessages;
  deleteAiConversation = this.ai.deleteAiConversation;
  listAiProposals = this.ai.listAiProposals;
  getAiProposal = this.ai.getAiProposal;
  applyAiProposal = this.ai.applyAiProposal;
  discardAiProposal = this.ai.discardAiProposal;
}

/** The admin app of a project created or listed by an internal-project user, acting as that user. */
export function ownedProjectAdminApp(
  parent: AppContext,
  projectId: string,
  ownerSession: Session,
): { app: GatehouseAdminApp; ctx: AppContext } {
  const app = new GatehouseAdminApp({
    projectId,
    baseUrl: parent.baseUrl,
    projectOwnerSession: ownerSession,
    noAutomaticPrefetch: true,
    redirectMethod: parent.redirectMethod,
    ...(parent.options.extraRequestHeaders
      ? { extraRequestHeaders: parent.options.extraRequestHeaders }
      : {}),
    ...(parent.options.runtime ? { runtime: parent.options.runtime } : {}),
  });
  return { app, ctx: app[gatehouseInternals].context };
}

declare module "../objects/owned-projects.ts" {
  /** An owned project's `app` is this module's admin app. */
  interface OwnedProjectAppType {
    app: GatehouseAdminApp;
  }
}
