import { defineError } from "../definition.ts";
import { quoted, text } from "./format.ts";

const ownKeys = "Configure your own OAuth keys for this provider to use them.";

/** Errors about OAuth sign-in, connected accounts and OAuth providers. */
export const oauthErrors = {
  // --- Connected accounts ---
  OAUTH_CONNECTION_NOT_CONNECTED_TO_USER: defineError(
    400,
    [],
    "This OAuth connection is not linked to any user.",
  ),
  OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER: defineError(
    409,
    [],
    "This OAuth account is already linked to another user.",
  ),
  USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION: defineError(
    409,
    [],
    "The user is already linked to a different account of this OAuth provider. Was the wrong account chosen?",
  ),
  OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN: defineError(
    400,
    [],
    "Another user already signs in with this OAuth provider account.",
  ),
  OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE: defineError(
    400,
    [],
    "The OAuth connection was not granted the required scope.",
  ),
  OAUTH_ACCESS_TOKEN_NOT_AVAILABLE: defineError(
    400,
    ["provider", "details"],
    (d) => `No access token is available from the OAuth provider ${text(d.provider)}: ${text(d.details)}`,
  ),

  // --- Shared (development) OAuth keys ---
  OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS: defineError(
    400,
    [],
    `Extra OAuth scopes cannot be requested with shared OAuth keys. ${ownKeys}`,
  ),
  OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS: defineError(
    400,
    [],
    `Provider access tokens are not available with shared OAuth keys. ${ownKeys}`,
  ),

  // --- The OAuth flow ---
  INVALID_OAUTH_CLIENT_ID_OR_SECRET: defineError(
    400,
    ["client_id"],
    (d) =>
      `The OAuth client ID${d.client_id == null ? "" : ` ${quoted(d.client_id)}`} or its secret is not valid. ` +
      "The client ID must be the project ID (optionally with a branch, as <projectId>#<branchId>), and the client secret must " +
      "be a publishable client key.",
  ),
  INVALID_SCOPE: defineError(
    400,
    [],
    "The requested OAuth scope is not supported; only 'legacy' is accepted.",
  ),
  INVALID_AUTHORIZATION_CODE: defineError(
    400,
    [],
    "The authorization code is not valid or has already been used.",
  ),
  OUTER_OAUTH_TIMEOUT: defineError(
    408,
    [],
    "The OAuth sign-in took too long and timed out. Please sign in again.",
  ),

  // --- Providers ---
  OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED: defineError(
    400,
    [],
    "This OAuth provider does not exist or is not enabled for this project.",
  ),
  INVALID_SHARED_OAUTH_PROVIDER_ID: defineError(
    400,
    ["provider_id"],
    (d) => `${quoted(d.provider_id)} is not a valid shared OAuth provider ID.`,
  ),
  INVALID_STANDARD_OAUTH_PROVIDER_ID: defineError(
    400,
    ["provider_id"],
    (d) => `${quoted(d.provider_id)} is not a valid standard OAuth provider ID.`,
  ),
  OAUTH_PROVIDER_ACCESS_DENIED: defineError(400, [], "The OAuth provider denied access."),
  OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE: defineError(
    503,
    [],
    "The OAuth provider is temporarily unavailable. Please try again later.",
  ),
  APPLE_BUNDLE_ID_NOT_CONFIGURED: defineError(
    400,
    [],
    "Sign in with Apple needs at least one bundle ID configured for this project.",
  ),
  INVALID_APPLE_CREDENTIALS: defineError(400, [], "The Apple credentials are not valid."),
} as const;
