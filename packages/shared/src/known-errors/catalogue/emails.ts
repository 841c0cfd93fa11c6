import { defineError } from "../definition.ts";
import { isoDate, text } from "./format.ts";

/** Errors about e-mail templates, rendering, sending capacity and the outbox. */
export const emailErrors = {
  EMAIL_TEMPLATE_ALREADY_EXISTS: defineError(409, [], "An e-mail template with this ID already exists."),
  EMAIL_RENDERING_ERROR: defineError(
    400,
    ["error"],
    (d) => `The e-mail could not be rendered: ${text(d.error)}`,
  ),
  TEMPLATE_SOURCE_REWRITE_ERROR: defineError(
    400,
    ["error"],
    (d) => `The template source could not be rewritten: ${text(d.error)}`,
  ),
  REQUIRES_CUSTOM_EMAIL_SERVER: defineError(
    400,
    [],
    "This action needs a custom e-mail (SMTP) server. Configure one for the project and try again.",
  ),
  EMAIL_CAPACITY_BOOST_ALREADY_ACTIVE: defineError(
    409,
    ["expires_at"],
    (d) => `An e-mail capacity boost is already active until ${isoDate(d.expires_at) ?? text(d.expires_at)}.`,
  ),
  EMAIL_NOT_EDITABLE: defineError(
    400,
    ["email_id", "status"],
    (d) => `The e-mail ${text(d.email_id)} can no longer be edited because its status is ${text(d.status)}.`,
  ),
} as const;
