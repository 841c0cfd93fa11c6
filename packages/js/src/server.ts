// @gatehouse/js/server: the client entry and the server app (with the secret server key), email sending and
// webhook verification. For backends; a browser app imports @gatehouse/js/client.

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
export type { ListUsersOptions, Paginated } from "./apps/server-app.ts";
export { GatehouseServerApp } from "./apps/server-app.ts";
export * from "./client.ts";
export type { CurrentServerUser } from "./objects/current-user.ts";
export type { ServerCustomer, ServerItem } from "./objects/customers.ts";
export type { ServerUser } from "./objects/server-user.ts";
export type { ServerTeam } from "./objects/teams.ts";
export type { ServerUserCreateOptions, ServerUserUpdateOptions } from "./objects/users.ts";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
} from "./webhooks/verify-webhook.ts";

import { GatehouseServerApp } from "./apps/server-app.ts";

/** The reference SDK's name. */
export const StackServerApp = GatehouseServerApp;
export type StackServerApp = GatehouseServerApp;
