import type {
  WireClientTeam,
  WireClientUser,
  WireRestrictedReason,
  WireServerTeam,
  WireServerUser,
} from "@gatehouse/shared";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { wire } from "../../http/wire-schema.ts";
import type { ContactChannelRow } from "../contact-channels/schema.ts";
import type { TeamRow } from "../teams/schema.ts";
import type { UserRow } from "./schema.ts";
import { loadUserRelations, type UserRelations } from "./user-with-relations.ts";

const json = z.unknown();
const restrictedReason = z
  .object({ type: z.enum(["anonymous", "email_not_verified", "restricted_by_administrator"]) })
  .nullable();

export const clientTeamSchema = wire<WireClientTeam>()(
  z.object({
    id: z.string(),
    display_name: z.string(),
    profile_image_url: z.string().nullable(),
    client_metadata: json,
    client_read_only_metadata: json,
  }),
);

export const serverTeamSchema = wire<WireServerTeam>()(
  clientTeamSchema.extend({
    created_at_millis: z.number(),
    server_metadata: json,
  }),
);

const oauthProviderRef = z.object({ id: z.string(), account_id: z.string(), email: z.string().nullable() });

/** PROTOCOL.md §3.2 client read. */
export const clientUserSchema = wire<WireClientUser>()(
  z.object({
    id: z.string(),
    primary_email: z.string().nullable(),
    primary_email_verified: z.boolean(),
    display_name: z.string().nullable(),
    client_metadata: json,
    client_read_only_metadata: json,
    profile_image_url: z.string().nullable(),
    signed_up_at_millis: z.number(),
    has_password: z.boolean(),
    auth_with_email: z.boolean(),
    oauth_providers: z.array(oauthProviderRef),
    selected_team_id: z.string().nullable(),
    selected_team: clientTeamSchema.nullable(),
    requires_totp_mfa: z.boolean(),
    otp_auth_enabled: z.boolean(),
    passkey_auth_enabled: z.boolean(),
    is_anonymous: z.boolean(),
    is_restricted: z.boolean(),
    restricted_reason: restrictedReason,
    restricted_by_admin: z.boolean(),
    restricted_by_admin_reason: z.string().nullable(),
  }),
);

/** PROTOCOL.md §3.2 server read. */
export const serverUserSchema = wire<WireServerUser>()(
  clientUserSchema.extend({
    primary_email_auth_enabled: z.boolean(),
    selected_team: serverTeamSchema.nullable(),
    server_metadata: json,
    last_active_at_millis: z.number(),
    restricted_by_admin_private_details: z.string().nullable(),
    country_code: z.string().nullable(),
    risk_scores: z.object({ sign_up: z.object({ bot: z.number(), free_trial_abuse: z.number() }) }),
  }),
);

export type ServerUserView = WireServerUser;

export function teamView(team: TeamRow): WireServerTeam {
  return {
    id: team.id,
    display_name: team.displayName,
    profile_image_url: team.profileImageUrl,
    client_metadata: team.clientMetadata,
    client_read_only_metadata: team.clientReadOnlyMetadata,
    server_metadata: team.serverMetadata,
    created_at_millis: team.createdAt.getTime(),
  };
}

export type RestrictedReasonValue = WireRestrictedReason | null;

/** Why a user is restricted, if they are: anonymous first, then unverified email (when required), then the admin. */
export function restrictedReasonOf(
  user: UserRow,
  primary: ContactChannelRow | null,
  config: RenderedConfig,
): RestrictedReasonValue {
  if (user.isAnonymous) return { type: "anonymous" };
  if (config.onboarding.requireEmailVerification && !(primary?.isVerified ?? false)) {
    return { type: "email_not_verified" };
  }
  if (user.restrictedByAdmin) return { type: "restricted_by_administrator" };
  return null;
}

/** The fullest (server) view of a user; client responses are trimmed from it by the route's schema. */
export function userView(user: UserRow, relations: UserRelations, config: RenderedConfig): ServerUserView {
  const primary = relations.primaryChannel.get(user.id) ?? null;
  const team = user.selectedTeamId ? (relations.selectedTeam.get(user.selectedTeamId) ?? null) : null;
  const reason = restrictedReasonOf(user, primary, config);
  const requiresTotp = user.totpSecretEncrypted !== null;
  return {
    id: user.id,
    primary_email: primary?.value ?? null,
    primary_email_verified: primary?.isVerified ?? false,
    primary_email_auth_enabled: primary?.usedForAuth ?? false,
    // Rows written before empty names were stored as null may still hold "", which reads as no name.
    display_name: user.displayName || null,
    client_metadata: user.clientMetadata,
    client_read_only_metadata: user.clientReadOnlyMetadata,
    server_metadata: user.serverMetadata,
    profile_image_url: user.profileImageUrl,
    signed_up_at_millis: user.signedUpAt.getTime(),
    last_active_at_millis: user.lastActiveAt.getTime(),
    has_password: user.passwordHash !== null,
    auth_with_email: user.passwordHash !== null || user.otpAuthEnabled,
    oauth_providers: relations.oauthProviders.get(user.id) ?? [],
    selected_team_id: team ? user.selectedTeamId : null,
    selected_team: team ? teamView(team) : null,
    requires_totp_mfa: requiresTotp,
    otp_auth_enabled: user.otpAuthEnabled,
    passkey_auth_enabled: user.passkeyAuthEnabled,
    is_anonymous: user.isAnonymous,
    is_restricted: reason !== null,
    restricted_reason: reason,
    restricted_by_admin: user.restrictedByAdmin,
    restricted_by_admin_reason: user.restrictedByAdmin ? user.restrictedByAdminReason : null,
    restricted_by_admin_private_details: user.restrictedByAdmin ? user.restrictedByAdminPrivateDetails : null,
    country_code: user.countryCode,
    risk_scores: user.riskScores as ServerUserView["risk_scores"],
  };
}

/** One user's view (two queries at most). */
export async function loadUserView(
  db: Database,
  projectId: string,
  user: UserRow,
  config: RenderedConfig,
): Promise<WireServerUser> {
  return userView(user, await loadUserRelations(db, projectId, [user]), config);
}
