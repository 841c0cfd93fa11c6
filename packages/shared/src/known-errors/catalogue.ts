import { cliAndApiKeyErrors } from "./catalogue/cli-and-api-keys.ts";
import { dataErrors } from "./catalogue/data.ts";
import { emailErrors } from "./catalogue/emails.ts";
import { type KnownErrorFamilyCode, knownErrorFamilies } from "./catalogue/families.ts";
import { oauthErrors } from "./catalogue/oauth.ts";
import { paymentErrors } from "./catalogue/payments.ts";
import { projectAuthErrors } from "./catalogue/project-auth.ts";
import { requestErrors } from "./catalogue/request.ts";
import { sessionErrors } from "./catalogue/session.ts";
import { teamAndPermissionErrors } from "./catalogue/teams-permissions.ts";
import { userErrors } from "./catalogue/users.ts";
import type { KnownErrorDefinition } from "./definition.ts";

/**
 * Every known error of the wire protocol (PROTOCOL.md §2.3), keyed by its code: the abstract families plus the
 * concrete errors, which live in one file per area under `catalogue/`.
 * Detail keys are spelled exactly as clients read them (including the odd camelCase `maxLength`).
 */
export const knownErrorCatalogue = {
  ...knownErrorFamilies,
  ...requestErrors,
  ...projectAuthErrors,
  ...sessionErrors,
  ...userErrors,
  ...teamAndPermissionErrors,
  ...oauthErrors,
  ...cliAndApiKeyErrors,
  ...emailErrors,
  ...paymentErrors,
  ...dataErrors,
} as const;

/** Every code of the catalogue, abstract families included. */
export type KnownErrorCode = keyof typeof knownErrorCatalogue;

export type { KnownErrorFamilyCode };

/** A code that can actually be sent in a response (every code that is not an abstract family). */
export type ConcreteKnownErrorCode = Exclude<KnownErrorCode, KnownErrorFamilyCode>;

/** Every concrete (sendable) code, in catalogue order. */
export const KNOWN_ERROR_CODES: readonly ConcreteKnownErrorCode[] = Object.freeze(
  (Object.entries(knownErrorCatalogue) as [KnownErrorCode, KnownErrorDefinition][])
    .filter(([, definition]) => definition.status !== null)
    .map(([code]) => code as ConcreteKnownErrorCode),
);
