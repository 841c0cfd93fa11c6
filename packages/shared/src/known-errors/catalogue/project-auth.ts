import { defineError } from "../definition.ts";
import { under } from "./families.ts";
import { isoDate, quoted, text } from "./format.ts";

const accessTypes = "'client', 'server' or 'admin'";

/** Errors about how the request identifies its project: access type, project keys, admin tokens. */
export const projectAuthErrors = {
  // --- Access type and project keys (INVALID_PROJECT_AUTHENTICATION) ---
  PROJECT_KEY_WITHOUT_ACCESS_TYPE: defineError(
    400,
    [],
    `A project key or an admin access token was sent without the x-stack-access-type header. Set it to ${accessTypes}.`,
    under("INVALID_PROJECT_AUTHENTICATION"),
  ),
  INVALID_ACCESS_TYPE: defineError(
    400,
    [],
    `The x-stack-access-type header must be ${accessTypes}.`,
    under("INVALID_PROJECT_AUTHENTICATION"),
  ),
  ACCESS_TYPE_WITHOUT_PROJECT_ID: defineError(
    400,
    ["request_type"],
    (d) =>
      `The x-stack-access-type header was '${text(d.request_type)}', but the x-stack-project-id header was not sent.`,
    under("INVALID_PROJECT_AUTHENTICATION"),
  ),
  ACCESS_TYPE_REQUIRED: defineError(
    400,
    [],
    "This endpoint needs project authentication. Send the project's keys (for example " +
      `x-stack-publishable-client-key) and set the x-stack-access-type header to ${accessTypes}.`,
    under("INVALID_PROJECT_AUTHENTICATION"),
  ),
  INSUFFICIENT_ACCESS_TYPE: defineError(
    401,
    ["actual_access_type", "allowed_access_types"],
    (d) => {
      const allowed = Array.isArray(d.allowed_access_types)
        ? d.allowed_access_types.map((type) => `'${text(type)}'`).join(" or ")
        : `'${text(d.allowed_access_types)}'`;
      return `The x-stack-access-type header must be ${allowed}, but was '${text(d.actual_access_type)}'.`;
    },
    under("INVALID_PROJECT_AUTHENTICATION"),
  ),
  INVALID_PUBLISHABLE_CLIENT_KEY: defineError(
    401,
    ["project_id"],
    (d) =>
      `The publishable key is not valid for the project ${quoted(d.project_id)}. Does the project and/or the key exist?`,
    under("INVALID_PROJECT_AUTHENTICATION"),
  ),
  INVALID_SECRET_SERVER_KEY: defineError(
    401,
    ["project_id"],
    (d) =>
      `The secret server key is not valid for the project ${quoted(d.project_id)}. Does the project and/or the key exist?`,
    under("INVALID_PROJECT_AUTHENTICATION"),
  ),
  INVALID_SUPER_SECRET_ADMIN_KEY: defineError(
    401,
    ["project_id"],
    (d) =>
      `The super secret admin key is not valid for the project ${quoted(d.project_id)}. ` +
      "Does the project and/or the key exist?",
    under("INVALID_PROJECT_AUTHENTICATION"),
  ),

  // --- Admin access tokens (INVALID_ADMIN_ACCESS_TOKEN) ---
  UNPARSABLE_ADMIN_ACCESS_TOKEN: defineError(
    401,
    [],
    "The admin access token could not be parsed.",
    under("INVALID_ADMIN_ACCESS_TOKEN"),
  ),
  ADMIN_ACCESS_TOKEN_EXPIRED: defineError(
    401,
    ["expired_at_millis"],
    (d) => {
      const at = isoDate(d.expired_at_millis);
      return `The admin access token has expired; refresh it and try again.${at ? ` (It expired at ${at}.)` : ""}`;
    },
    under("INVALID_ADMIN_ACCESS_TOKEN"),
  ),
  INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN: defineError(
    401,
    [],
    "Admin access tokens must be issued by the internal project.",
    under("INVALID_ADMIN_ACCESS_TOKEN"),
  ),
  ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN: defineError(
    401,
    [],
    "The admin access token does not belong to a user who manages this project.",
    under("INVALID_ADMIN_ACCESS_TOKEN"),
  ),

  // --- Deprecated "authentication required" errors (PROJECT_AUTHENTICATION_REQUIRED) ---
  CLIENT_AUTHENTICATION_REQUIRED: defineError(
    401,
    [],
    "A publishable client key is required for this request.",
    under("PROJECT_AUTHENTICATION_REQUIRED"),
  ),
  PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT: defineError(
    401,
    ["project_id"],
    (d) =>
      `${d.project_id == null ? "This project" : `The project ${quoted(d.project_id)}`} requires a publishable ` +
      "client key, but none was sent.",
    under("PROJECT_AUTHENTICATION_REQUIRED"),
  ),
  SERVER_AUTHENTICATION_REQUIRED: defineError(
    401,
    [],
    "A secret server key is required for this request.",
    under("PROJECT_AUTHENTICATION_REQUIRED"),
  ),
  CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED: defineError(
    401,
    [],
    "Either a publishable client key or a secret server key is required for this request.",
    under("PROJECT_AUTHENTICATION_REQUIRED"),
  ),
  CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED: defineError(
    401,
    [],
    "Either a publishable client key or a super secret admin key is required for this request.",
    under("PROJECT_AUTHENTICATION_REQUIRED"),
  ),
  CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED: defineError(
    401,
    [],
    "A publishable client key, a secret server key or a super secret admin key is required for this request.",
    under("PROJECT_AUTHENTICATION_REQUIRED"),
  ),
  ADMIN_AUTHENTICATION_REQUIRED: defineError(
    401,
    [],
    "A super secret admin key is required for this request.",
    under("PROJECT_AUTHENTICATION_REQUIRED"),
  ),

  // --- Internal project ---
  EXPECTED_INTERNAL_PROJECT: defineError(
    401,
    [],
    "This endpoint only works on the internal project.",
    under("PROJECT_AUTHENTICATION_ERROR"),
  ),

  // --- Projects and branches ---
  PROJECT_NOT_FOUND: defineError(
    404,
    ["project_id"],
    (d) => `The project ${text(d.project_id)} was not found, or the current user cannot access it.`,
  ),
  CURRENT_PROJECT_NOT_FOUND: defineError(
    400,
    ["project_id"],
    (d) =>
      `The current project with ID ${text(d.project_id)} was not found. ` +
      "Please check the value of the x-stack-project-id header.",
  ),
  BRANCH_DOES_NOT_EXIST: defineError(
    400,
    ["branch_id"],
    (d) => `The branch with ID ${text(d.branch_id)} does not exist.`,
  ),
} as const;
