// @gatehouse/js/admin: the server entry and the admin app (project settings, email templates, payments admin,
// AI, metrics, the webhook portal, owned projects). For the dashboard and tools; a browser app imports
// @gatehouse/js/client.

export type {
  AiChatMessage,
  AiConfigProposal,
  AiContentBlock,
  AiConversation,
  AiConversationSummary,
  AiQueryOptions,
  AiStatus,
  AiStreamChunk,
} from "./apps/admin-ai.ts";
export type { AdminSentEmail, EmailServerConfig } from "./apps/admin-app.ts";
export { GatehouseAdminApp } from "./apps/admin-app.ts";
export type {
  AdminEmailDraft,
  EmailDeliveryInfo,
  EmailDraftCreateOptions,
  EmailDraftUpdateOptions,
} from "./apps/admin-email-drafts.ts";
export type {
  AdminEmailTemplate,
  AdminEmailTheme,
  AdminEmailThemeWithSource,
  EmailPreview,
  EmailPreviewOptions,
  EmailThemeChoice,
} from "./apps/admin-email-templates.ts";
export type {
  GetMetricsOptions,
  MetricsActivitySplit,
  MetricsDataPoint,
  MetricsRecentUser,
  MetricsResponse,
} from "./apps/admin-metrics.ts";
export type {
  ListTransactionsOptions,
  StripeAccountInfo,
  Transaction,
  TransactionEntry,
  TransactionType,
} from "./apps/admin-payments.ts";
export type {
  SignUpAuthMethod,
  SignUpRiskScores,
  SignUpRuleActionType,
  SignUpRuleEvaluationStatus,
  SignUpRulesStats,
  SignUpRulesTestInput,
  SignUpRulesTestResult,
} from "./apps/admin-sign-up-rules.ts";
export type { FilteredUsers, FilterUsersOptions, UserSignInMethod } from "./apps/admin-users.ts";
export {
  openWebhookPortal,
  readWebhookPortalToken,
  type WebhookDelivery,
  type WebhookDeliveryAttempt,
  type WebhookDeliveryStatus,
  type WebhookEndpoint,
  type WebhookEndpointCreateOptions,
  type WebhookEndpointFirstView,
  type WebhookEndpointUpdateOptions,
  type WebhookEventTypeInfo,
  type WebhookPortal,
} from "./apps/admin-webhook-portal.ts";
export type { WebhookPortalToken } from "./apps/admin-webhooks.ts";
export type { AdminProject } from "./objects/admin-projects.ts";
export type { InternalApiKey, InternalApiKeyFirstView } from "./objects/internal-api-keys.ts";
export * from "./server.ts";

import { GatehouseAdminApp } from "./apps/admin-app.ts";
import type { AdminOwnedProject as OwnedProject } from "./objects/owned-projects.ts";

/** The reference SDK's name. */
export const StackAdminApp = GatehouseAdminApp;
export type StackAdminApp = GatehouseAdminApp;

/** A project the signed-in internal user owns, with an admin app acting as them on it. */
export type AdminOwnedProject = OwnedProject<GatehouseAdminApp>;
