import { defineError } from "../definition.ts";
import { under } from "./families.ts";
import { isoDate, quoted, restrictedReasonType } from "./format.ts";

/** Errors about the signed-in user's session: access tokens, refresh tokens, and who may use the request. */
export const sessionErrors = {
  // --- Access tokens (INVALID_ACCESS_TOKEN: the SDK refreshes and retries) ---
  UNPARSABLE_ACCESS_TOKEN: defineError(
    401,
    [],
    "The access token could not be parsed, or its signature is not valid.",
    under("INVALID_ACCESS_TOKEN"),
  ),
  ACCESS_TOKEN_EXPIRED: defineError(
    401,
    ["expired_at_millis", "project_id", "user_id", "refresh_token_id"],
    (d) => {
      const at = isoDate(d.expired_at_millis);
      return `The access token has expired; refresh it and try again.${at ? ` (It expired at ${at}.)` : ""}`;
    },
    under("INVALID_ACCESS_TOKEN"),
  ),
  INVALID_PROJECT_FOR_ACCESS_TOKEN: defineError(
    401,
    ["expected_project_id", "actual_project_id"],
    (d) =>
      `The access token is not valid for this project: the project ID ${quoted(d.expected_project_id)} was ` +
      `expected, but the token was issued for ${quoted(d.actual_project_id)}.`,
    under("INVALID_ACCESS_TOKEN"),
  ),

  // --- Refresh tokens and sessions (REFRESH_TOKEN_ERROR: the SDK signs out) ---
  REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED: defineError(
    401,
    [],
    "The refresh token does not exist for this project, or its session has expired or been revoked.",
    under("REFRESH_TOKEN_ERROR"),
  ),
  PROVIDER_REJECTED: defineError(
    401,
    [],
    "The OAuth provider refused to refresh its token, so this session is no longer valid. Please sign in again.",
    under("REFRESH_TOKEN_ERROR"),
  ),
  CANNOT_DELETE_CURRENT_SESSION: defineError(
    400,
    [],
    "The session making this request cannot be deleted; sign out instead.",
  ),

  // --- Which users may make the request ---
  USER_AUTHENTICATION_REQUIRED: defineError(401, [], "User authentication required for this endpoint."),
  CANNOT_GET_OWN_USER_WITHOUT_USER: defineError(
    400,
    [],
    "'me' was used as a user ID, but the request is not authenticated as an existing user.",
  ),
  ANONYMOUS_AUTHENTICATION_NOT_ALLOWED: defineError(
    401,
    [],
    "The access token belongs to an anonymous user, which this request does not accept. " +
      "Set the x-stack-allow-anonymous-user header to 'true' to let anonymous users through.",
  ),
  RESTRICTED_USER_NOT_ALLOWED: defineError(
    403,
    ["restricted_reason"],
    (d) =>
      `The access token belongs to a restricted user (reason: ${restrictedReasonType(d.restricted_reason)}), ` +
      "which this request does not accept. Set the x-stack-allow-restricted-user header to 'true' to let " +
      "restricted users through.",
  ),

  // --- Multi-factor authentication ---
  MULTI_FACTOR_AUTHENTICATION_REQUIRED: defineError(
    400,
    ["attempt_code"],
    "Multi-factor authentication is required for this user.",
  ),
  INVALID_TOTP_CODE: defineError(400, [], "The TOTP code is not valid. Please try again."),
} as const;
