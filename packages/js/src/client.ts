// @gatehouse/js/client: what a browser app needs, and nothing of the server or admin apps, so that a bundler has
// nothing to drop (see DECISIONS.md, "The SDK's entries"). The main entry re-exports all of it.
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
export type { Auth, AuthJson } from "./apps/auth-tokens.ts";
export type { CliLoginOptions } from "./apps/cli-login.ts";
export { GatehouseClientApp, gatehouseInternals } from "./apps/client-app.ts";
export type {
  AdminAppOptions,
  ClientAppOptions,
  RedirectMethod,
  ServerAppOptions,
  TokenStoreInit,
} from "./apps/options.ts";
export type { PurchaseChoice, PurchaseOffer } from "./apps/purchase-codes.ts";
export type { ClientAppJson } from "./apps/serialize.ts";
export { MFA_ATTEMPT_CODE_STORAGE_KEY } from "./apps/sign-in.ts";
export { HANDLER_PAGES, type HandlerUrlOptions, type HandlerUrls } from "./apps/urls.ts";
export type { GetUserOptions } from "./apps/user-reads.ts";
export type { CacheSnapshot } from "./cache/async-cache.ts";
export type { Watchable } from "./cache/watch.ts";
export { ConnectionError, HttpStatusError, InvalidServerResponseError } from "./http/errors.ts";
export type { Runtime } from "./http/runtime.ts";
export type { ApiKey } from "./objects/api-keys.ts";
export type { ContactChannel } from "./objects/contact-channels.ts";
export type { CurrentUser } from "./objects/current-user.ts";
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
} from "./objects/customers.ts";
export type { DevInbox, DevInboxEmail } from "./objects/owned-projects.ts";
export type { PermissionDefinition } from "./objects/permissions.ts";
export type { Project } from "./objects/projects.ts";
export type { ActiveSession } from "./objects/sessions.ts";
export type { Team } from "./objects/teams.ts";
export type { BaseUser, UserUpdateOptions } from "./objects/users.ts";
export { decodeAccessToken } from "./session/jwt.ts";
export type { Session } from "./session/session.ts";
export { Result } from "./utils/result.ts";
export { SDK_VERSION } from "./version.ts";

import { GatehouseClientApp, gatehouseInternals } from "./apps/client-app.ts";

/** The reference SDK's names. */
export const StackClientApp = GatehouseClientApp;
export type StackClientApp = GatehouseClientApp;
export const stackAppInternalsSymbol = gatehouseInternals;
