import { defineError } from "../definition.ts";
import { quoted, restrictedReasonType, text } from "./format.ts";

/** Errors about permissions, teams, memberships and team invitations. */
export const teamAndPermissionErrors = {
  // --- Permission definitions ---
  PERMISSION_NOT_FOUND: defineError(
    404,
    ["permission_id"],
    (d) =>
      `The permission ${quoted(d.permission_id)} was not found. Make sure it has been created for this project.`,
  ),
  WRONG_PERMISSION_SCOPE: defineError(
    404,
    ["permission_id", "expected_scope", "actual_scope"],
    (d) =>
      `The permission ${quoted(d.permission_id)} was not found in the ${text(d.expected_scope)} scope` +
      (d.actual_scope == null ? "." : ` (it exists in the ${text(d.actual_scope)} scope instead).`),
  ),
  CONTAINED_PERMISSION_NOT_FOUND: defineError(
    400,
    ["permission_id"],
    (d) =>
      `The contained permission ${quoted(d.permission_id)} was not found. Make sure it has been created for ` +
      "this project.",
  ),
  PERMISSION_ID_ALREADY_EXISTS: defineError(
    400,
    ["permission_id"],
    (d) => `A permission with the ID ${quoted(d.permission_id)} already exists. Choose another ID.`,
  ),

  // --- Granted permissions ---
  PROJECT_PERMISSION_REQUIRED: defineError(
    401,
    ["user_id", "permission_id"],
    (d) => `The user ${text(d.user_id)} does not have the project permission ${quoted(d.permission_id)}.`,
  ),
  TEAM_PERMISSION_REQUIRED: defineError(
    401,
    ["team_id", "user_id", "permission_id"],
    (d) =>
      `The user ${text(d.user_id)} does not have the permission ${quoted(d.permission_id)} in the team ` +
      `${text(d.team_id)}.`,
  ),
  TEAM_PERMISSION_NOT_FOUND: defineError(
    401,
    ["team_id", "user_id", "permission_id"],
    (d) =>
      `The permission ${quoted(d.permission_id)} was not found for the user ${text(d.user_id)} in the team ` +
      `${text(d.team_id)}.`,
  ),

  // --- Teams and memberships ---
  TEAM_NOT_FOUND: defineError(404, ["team_id"], (d) => `The team ${text(d.team_id)} was not found.`),
  TEAM_ALREADY_EXISTS: defineError(409, ["team_id"], (d) => `The team ${text(d.team_id)} already exists.`),
  TEAM_MEMBERSHIP_NOT_FOUND: defineError(
    404,
    ["team_id", "user_id"],
    (d) => `The user ${text(d.user_id)} is not a member of the team ${text(d.team_id)}.`,
  ),
  TEAM_MEMBERSHIP_ALREADY_EXISTS: defineError(409, [], "The user is already a member of this team."),

  // --- Team invitations ---
  TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED: defineError(
    403,
    ["restricted_reason"],
    (d) =>
      `Restricted users cannot accept team invitations (reason: ${restrictedReasonType(d.restricted_reason)}).`,
  ),
  TEAM_INVITATION_EMAIL_MISMATCH: defineError(
    403,
    [],
    "This invitation was sent to a different e-mail address than the signed-in user's.",
  ),
} as const;
