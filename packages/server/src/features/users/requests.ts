/**
 * Request schemas of the users API (PROTOCOL.md §3.1, §3.2). All objects are strict: a field the caller may not write
 * is a SCHEMA_ERROR, never silently ignored.
 */
import type { WireServerUserCreate, WireServerUserUpdate, WireUserUpdate } from "@gatehouse/shared";
import { z } from "zod";
import { isSupportedPasswordHash } from "../../crypto/index.ts";
import { emailField } from "../../fields/email.ts";
import { clientProfileImageField, serverProfileImageField } from "../../fields/images.ts";
import { metadataField } from "../../fields/metadata.ts";
import { displayNameField } from "../../fields/text.ts";
import { plainTextIssue } from "../../http/schema-error.ts";
import { wireRequest } from "../../http/wire-schema.ts";
import {
  countryCodeField,
  INVALID_PASSWORD_HASH,
  passwordField,
  passwordHashField,
  restrictedReasonTextField,
  riskScoresField,
  totpSecretField,
} from "./fields.ts";

/**
 * A user's display name: "" means no name and is stored as null, as on the reference platform (which keeps only
 * non-empty names; a name of spaces is a name there too). Shared by create and both updates.
 */
const userDisplayNameField = displayNameField
  .nullable()
  .optional()
  .transform((value) => (value === "" ? null : value));

/** What `PATCH /users/me` accepts from a client. */
const clientUpdateFields = {
  display_name: userDisplayNameField,
  profile_image_url: clientProfileImageField.nullable().optional(),
  client_metadata: metadataField.optional(),
  selected_team_id: z.uuid().nullable().optional(),
  totp_secret_base64: totpSecretField.nullable().optional(),
  otp_auth_enabled: z.boolean().optional(),
  passkey_auth_enabled: z.boolean().optional(),
  primary_email: emailField.nullable().optional(),
};

/** Server-only fields shared by create and update. */
const serverWriteFields = {
  ...clientUpdateFields,
  profile_image_url: serverProfileImageField.nullable().optional(),
  client_read_only_metadata: metadataField.optional(),
  server_metadata: metadataField.optional(),
  primary_email_verified: z.boolean().optional(),
  primary_email_auth_enabled: z.boolean().optional(),
  password: passwordField.nullable().optional(),
  password_hash: passwordHashField.optional(),
  restricted_by_admin: z.boolean().optional(),
  restricted_by_admin_reason: restrictedReasonTextField.nullable().optional(),
  restricted_by_admin_private_details: restrictedReasonTextField.nullable().optional(),
  country_code: countryCodeField.nullable().optional(),
  risk_scores: riskScoresField.optional(),
};

type ServerWriteShape = {
  password?: string | null | undefined;
  password_hash?: string | undefined;
  restricted_by_admin?: boolean | undefined;
  restricted_by_admin_reason?: string | null | undefined;
  restricted_by_admin_private_details?: string | null | undefined;
};

/** Rules across fields, the same for create and update (so that a body means one thing whatever the user's state). */
function checkServerWrite(body: ServerWriteShape, ctx: z.RefinementCtx) {
  if (body.password !== undefined && body.password_hash !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["password_hash"],
      ...plainTextIssue("Cannot set both password and password_hash at the same time."),
    });
  } else if (body.password_hash !== undefined && !isSupportedPasswordHash(body.password_hash)) {
    ctx.addIssue({ code: "custom", path: ["password_hash"], ...plainTextIssue(INVALID_PASSWORD_HASH) });
  }
  if (body.restricted_by_admin !== true) {
    for (const key of ["restricted_by_admin_reason", "restricted_by_admin_private_details"] as const) {
      if (body[key] != null) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: "must be null unless restricted_by_admin is true",
        });
      }
    }
  }
}

export const clientUpdateBody = wireRequest<WireUserUpdate>()(z.strictObject(clientUpdateFields));

export const serverUpdateBody = wireRequest<WireServerUserUpdate>()(
  z
    .strictObject({
      ...serverWriteFields,
      /** Only upgrades: an anonymous user becomes a regular one, never the other way. */
      is_anonymous: z.literal(false).optional(),
    })
    .superRefine(checkServerWrite),
);

const oauthProviderInput = z.strictObject({
  id: z.string().max(256),
  account_id: z.string().max(1024),
  email: z.string().max(254).nullable().optional(),
});

export const serverCreateBody = wireRequest<WireServerUserCreate>()(
  z
    .strictObject({
      ...serverWriteFields,
      is_anonymous: z.boolean().optional(),
      oauth_providers: z.array(oauthProviderInput).max(50).optional(),
    })
    .superRefine(checkServerWrite),
);

export type UserPatch = z.output<typeof serverUpdateBody>;
export type UserCreateBody = z.output<typeof serverCreateBody>;

const booleanParam = z.enum(["true", "false"]).transform((value) => value === "true");

export const LIST_DEFAULT_LIMIT = 100;
/** How a user can sign in, for `GET /users?auth_method=`: a password, email codes, a passkey, an OAuth provider. */
export const USER_AUTH_METHODS = ["password", "otp", "passkey", "oauth"] as const;
export const LIST_MAX_LIMIT = 200;

/** The list's query parameters, unrefined: `GET /users/{id}` accepts them too and ignores them (§8.8). */
export const userQueryParameters = z.strictObject({
  limit: z.coerce.number().int().min(1).max(LIST_MAX_LIMIT).optional(),
  cursor: z.uuid().optional(),
  order_by: z.enum(["signed_up_at", "last_active_at"]).optional(),
  desc: booleanParam.optional(),
  query: z
    .string()
    .max(256)
    .refine((value) => !value.includes("\0"), "must not contain NUL")
    .optional(),
  team_id: z.uuid().optional(),
  include_anonymous: booleanParam.optional(),
  only_anonymous: booleanParam.optional(),
  include_restricted: booleanParam.optional(),
  // Gatehouse extensions for the dashboard's filters (PROTOCOL-EXTRA §6.8); they narrow what the protocol's
  // parameters above select, never widen it.
  primary_email_verified: booleanParam.optional(),
  restricted_by_admin: booleanParam.optional(),
  has_mfa: booleanParam.optional(),
  auth_method: z.enum(USER_AUTH_METHODS).optional(),
  include_total: booleanParam.optional(),
});

export const listUsersQuery = userQueryParameters.superRefine((query, ctx) => {
  if (query.restricted_by_admin && !query.include_restricted && !query.include_anonymous) {
    ctx.addIssue({
      code: "custom",
      path: ["restricted_by_admin"],
      message: "restricted_by_admin=true needs include_restricted=true",
    });
  }
  if (query.only_anonymous && !query.include_anonymous) {
    ctx.addIssue({
      code: "custom",
      path: ["only_anonymous"],
      message: "only_anonymous=true needs include_anonymous=true",
    });
  }
});

export type ListUsersQuery = z.output<typeof listUsersQuery>;
