// @gatehouse/js: the SDK for browsers and Node. The class names mirror the reference SDK's, so an app
// written against @stackframe/js migrates by changing its import.
export {
  fieldInWords,
  isKnownError,
  KnownError,
  type KnownErrorCode,
  type KnownErrorJson,
  looksTechnical,
  problemInWords,
  type SchemaIssue,
  schemaIssues,
} from "@gatehouse/shared";
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
export type { Auth, AuthJson } from "./apps/auth-tokens.ts";
export type { CliLoginOptions } from "./apps/cli-login.ts";
export { GatehouseClientApp, gatehouseInternals } from "./apps/client-app.ts";
export {
  type AdminEmailOutbox,
  type AdminEmailOutboxRecipient,
  type AdminEmailOutboxSimpleStatus,
  type AdminEmailOutboxStatus,
  type AdminSendAttemptError,
  EMAIL_OUTBOX_STATUSES,
  type ListOutboxEmailsOptions,
  type SendEmailOptions,
  type UpdateOutboxEmailOptions,
} from "./apps/emails.ts";
export type {
  AdminAppOptions,
  ClientAppOptions,
  RedirectMethod,
  ServerAppOptions,
  TokenStoreInit,
} from "./apps/options.ts";
export type { PurchaseChoice, PurchaseOffer } from "./apps/purchase-codes.ts";
export type { ClientAppJson } from "./apps/serialize.ts";
export type { ListUsersOptions, Paginated } from "./apps/server-app.ts";
export { GatehouseServerApp } from "./apps/server-app.ts";
export { MFA_ATTEMPT_CODE_STORAGE_KEY } from "./apps/sign-in.ts";
export { HANDLER_PAGES, type HandlerUrlOptions, type HandlerUrls } from "./apps/urls.ts";
export type { GetUserOptions } from "./apps/user-reads.ts";
export type { CacheSnapshot } from "./cache/async-cache.ts";
export type { Watchable } from "./cache/watch.ts";
export { ConnectionError, HttpStatusError, InvalidServerResponseError } from "./http/errors.ts";
export type { Runtime } from "./http/runtime.ts";
export type { ApiKey, InternalApiKey, InternalApiKeyFirstView } from "./objects/api-keys.ts";
export type { ContactChannel } from "./objects/contact-channels.ts";
export type { CurrentServerUser, CurrentUser } from "./objects/current-user.ts";
export type {
  Customer,
  CustomerBilling,
  CustomerInvoice,
  CustomerInvoicesList,
  CustomerListOptions,
  CustomerOptions,
  CustomerProduct,
  CustomerProductsList,
  CustomerType,
  InlineProduct,
  InlineProductPrice,
  Item,
  ProductChoice,
  ServerCustomer,
  ServerItem,
} from "./objects/customers.ts";
export type { DevInbox, DevInboxEmail } from "./objects/owned-projects.ts";
export type { PermissionDefinition } from "./objects/permissions.ts";
export type { AdminProject, Project } from "./objects/projects.ts";
export type { ServerUser } from "./objects/server-user.ts";
export type { ActiveSession } from "./objects/sessions.ts";
export type { ServerTeam, Team } from "./objects/teams.ts";
export type {
  BaseUser,
  ServerUserCreateOptions,
  ServerUserUpdateOptions,
  UserUpdateOptions,
} from "./objects/users.ts";
export { decodeAccessToken } from "./session/jwt.ts";
export type { Session } from "./session/session.ts";
export { Result } from "./utils/result.ts";
export { SDK_VERSION } from "./version.ts";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
} from "./webhooks/verify-webhook.ts";

import { GatehouseAdminApp } from "./apps/admin-app.ts";
import { GatehouseClientApp, gatehouseInternals } from "./apps/client-app.ts";
import { GatehouseServerApp } from "./apps/server-app.ts";
import type { AdminOwnedProject as OwnedProject } from "./objects/owned-projects.ts";

/** The reference SDK's names for the same classes. */
export const StackClientApp = GatehouseClientApp;
export type StackClientApp = GatehouseClientApp;
export const StackServerApp = GatehouseServerApp;
export type StackServerApp = GatehouseServerApp;
export const StackAdminApp = GatehouseAdminApp;
export type StackAdminApp = GatehouseAdminApp;
export const stackAppInternalsSymbol = gatehouseInternals;

/** A project the signed-in internal user owns, with an admin app acting as them on it. */
export type AdminOwnedProject = OwnedProject<GatehouseAdminApp>;
