import { defineError } from "../definition.ts";
import { under } from "./families.ts";
import { text } from "./format.ts";

/** Errors about command-line login and about API keys. */
export const cliAndApiKeyErrors = {
  // --- Command-line login ---
  /** The protocol allows arbitrary details here; none are declared, so none are sent. */
  INVALID_POLLING_CODE: defineError(400, [], "The polling code is not valid or does not exist."),
  CLI_AUTH_ERROR: defineError(400, [], "CLI authentication failed."),
  CLI_AUTH_EXPIRED_ERROR: defineError(400, [], "CLI authentication request expired. Please try again."),
  CLI_AUTH_USED_ERROR: defineError(400, [], "This authentication token has already been used."),

  // --- API keys (API_KEY_NOT_VALID) ---
  API_KEY_EXPIRED: defineError(401, [], "The API key has expired.", under("API_KEY_NOT_VALID")),
  API_KEY_REVOKED: defineError(401, [], "The API key has been revoked.", under("API_KEY_NOT_VALID")),
  WRONG_API_KEY_TYPE: defineError(
    400,
    ["expected_type", "actual_type"],
    (d) =>
      `This endpoint expects a ${text(d.expected_type)} API key, but a ${text(d.actual_type)} API key was sent.`,
    under("API_KEY_NOT_VALID"),
  ),
  API_KEY_NOT_FOUND: defineError(404, [], "API key not found.", under("API_KEY_NOT_VALID")),
  PUBLIC_API_KEY_CANNOT_BE_REVOKED: defineError(
    400,
    [],
    "Public API keys cannot be revoked through this endpoint.",
  ),
} as const;
