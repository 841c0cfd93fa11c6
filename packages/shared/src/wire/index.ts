/**
 * The wire protocol's request and response shapes, named once for the server (its views are checked against them)
 * and for @gatehouse/js (it reads responses through them). Types only: nothing here exists at run time.
 */
export type * from "./ai.ts";
export type * from "./api-keys.ts";
export type * from "./common.ts";
export type * from "./contact-channels.ts";
export type * from "./email-templates.ts";
export type * from "./emails.ts";
export type * from "./members.ts";
export type * from "./oauth.ts";
export type * from "./passkeys.ts";
export type * from "./payments.ts";
export type * from "./permissions.ts";
export type * from "./projects.ts";
export type * from "./sessions.ts";
export type * from "./sign-up-rules.ts";
export type * from "./teams.ts";
export type * from "./users.ts";
export type * from "./webhooks.ts";
