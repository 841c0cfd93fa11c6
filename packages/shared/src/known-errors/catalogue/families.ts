import { defineFamily } from "../definition.ts";

/**
 * The abstract families of PROTOCOL.md §2.1. They are never sent themselves; they only group codes so that
 * `isKnownError(error, FAMILY)` answers for every member. Each family lists its own parents, nearest first.
 */
export const knownErrorFamilies = {
  // Project authentication (keys, access type, admin tokens)
  PROJECT_AUTHENTICATION_ERROR: defineFamily(),
  INVALID_PROJECT_AUTHENTICATION: defineFamily(["PROJECT_AUTHENTICATION_ERROR"]),
  INVALID_ADMIN_ACCESS_TOKEN: defineFamily([
    "INVALID_PROJECT_AUTHENTICATION",
    "PROJECT_AUTHENTICATION_ERROR",
  ]),
  /** Deprecated family: the "… authentication required" errors, superseded by INSUFFICIENT_ACCESS_TYPE. */
  PROJECT_AUTHENTICATION_REQUIRED: defineFamily(["PROJECT_AUTHENTICATION_ERROR"]),

  // Session authentication (user access tokens); the SDK refreshes and retries on INVALID_ACCESS_TOKEN
  SESSION_AUTHENTICATION_ERROR: defineFamily(),
  INVALID_SESSION_AUTHENTICATION: defineFamily(["SESSION_AUTHENTICATION_ERROR"]),
  INVALID_ACCESS_TOKEN: defineFamily(["INVALID_SESSION_AUTHENTICATION", "SESSION_AUTHENTICATION_ERROR"]),

  // Refresh tokens; on the token endpoint the SDK treats this family as "signed out"
  REFRESH_TOKEN_ERROR: defineFamily(),

  // Passwords, verification codes, API keys
  PASSWORD_REQUIREMENTS_NOT_MET: defineFamily(),
  VERIFICATION_ERROR: defineFamily(),
  API_KEY_NOT_VALID: defineFamily(),
} as const;

/** The code of an abstract family. */
export type KnownErrorFamilyCode = keyof typeof knownErrorFamilies;

/**
 * The `parents` list of an error that belongs to `family`: the family itself followed by its own parents,
 * nearest first. Typed, so a misspelt family name does not compile.
 */
export function under(family: KnownErrorFamilyCode): readonly string[] {
  return [family, ...knownErrorFamilies[family].parents];
}
