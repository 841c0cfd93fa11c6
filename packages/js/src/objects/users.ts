import type { WireClientUser, WireRestrictedReason, WireServerUserUpdate } from "@gatehouse/shared";
import { bytesToBase64, defined } from "./scope.ts";
import type { Team } from "./teams.ts";

export type RestrictedReason = WireRestrictedReason;

/** The fields every view of a user has (SPEC.md §3, client view). */
export type BaseUser = {
  readonly id: string;
  readonly displayName: string | null;
  readonly primaryEmail: string | null;
  readonly primaryEmailVerified: boolean;
  readonly profileImageUrl: string | null;
  readonly signedUpAt: Date;
  readonly clientMetadata: unknown;
  readonly clientReadOnlyMetadata: unknown;
  readonly hasPassword: boolean;
  readonly emailAuthEnabled: boolean;
  readonly otpAuthEnabled: boolean;
  readonly passkeyAuthEnabled: boolean;
  readonly isMultiFactorRequired: boolean;
  readonly isAnonymous: boolean;
  readonly isRestricted: boolean;
  readonly restrictedReason: RestrictedReason | null;
  readonly oauthProviders: readonly { id: string }[];
  readonly selectedTeamId: string | null;
  readonly selectedTeam: Team | null;
  /** The user as the wire carries it (snake_case), e.g. to hand from server to client. */
  toClientJson(): Record<string, unknown>;
};

/** What a server additionally sees (SPEC.md §3, server user). */
export type ServerUserFields = {
  readonly serverMetadata: unknown;
  readonly lastActiveAt: Date;
  readonly primaryEmailAuthEnabled: boolean;
  readonly countryCode: string | null;
  readonly riskScores: { readonly signUp: { readonly bot: number; readonly freeTrialAbuse: number } };
  readonly restrictedByAdmin: boolean;
  readonly restrictedByAdminReason: string | null;
  readonly restrictedByAdminPrivateDetails: string | null;
};

export type UserUpdateOptions = {
  displayName?: string | null;
  clientMetadata?: unknown;
  selectedTeamId?: string | null;
  /** Turns TOTP multi-factor authentication on (the secret's bytes) or off (null). */
  totpMultiFactorSecret?: Uint8Array | null;
  profileImageUrl?: string | null;
  otpAuthEnabled?: boolean;
  passkeyAuthEnabled?: boolean;
  primaryEmail?: string | null;
};

export type ServerUserUpdateOptions = UserUpdateOptions & {
  primaryEmailVerified?: boolean;
  primaryEmailAuthEnabled?: boolean;
  clientReadOnlyMetadata?: unknown;
  serverMetadata?: unknown;
  password?: string | null;
  restrictedByAdmin?: boolean;
  restrictedByAdminReason?: string | null;
  restrictedByAdminPrivateDetails?: string | null;
  countryCode?: string | null;
  riskScores?: { signUp: { bot: number; freeTrialAbuse: number } };
};

export type ServerUserCreateOptions = {
  primaryEmail?: string | null;
  primaryEmailVerified?: boolean;
  primaryEmailAuthEnabled?: boolean;
  password?: string;
  otpAuthEnabled?: boolean;
  displayName?: string;
  profileImageUrl?: string | null;
  clientMetadata?: unknown;
  clientReadOnlyMetadata?: unknown;
  serverMetadata?: unknown;
  isAnonymous?: boolean;
  countryCode?: string | null;
  riskScores?: { signUp: { bot: number; freeTrialAbuse: number } };
};

export function userUpdateToWire(update: ServerUserUpdateOptions): WireServerUserUpdate {
  return defined<WireServerUserUpdate>({
    display_name: update.displayName,
    client_metadata: update.clientMetadata,
    selected_team_id: update.selectedTeamId,
    totp_secret_base64:
      update.totpMultiFactorSecret === undefined
        ? undefined
        : update.totpMultiFactorSecret === null
          ? null
          : bytesToBase64(update.totpMultiFactorSecret),
    profile_image_url: update.profileImageUrl,
    otp_auth_enabled: update.otpAuthEnabled,
    passkey_auth_enabled: update.passkeyAuthEnabled,
    primary_email: update.primaryEmail,
    primary_email_verified: update.primaryEmailVerified,
    primary_email_auth_enabled: update.primaryEmailAuthEnabled,
    client_read_only_metadata: update.clientReadOnlyMetadata,
    server_metadata: update.serverMetadata,
    password: update.password,
    restricted_by_admin: update.restrictedByAdmin,
    restricted_by_admin_reason: update.restrictedByAdminReason,
    restricted_by_admin_private_details: update.restrictedByAdminPrivateDetails,
    country_code: update.countryCode,
    risk_scores:
      update.riskScores === undefined
        ? undefined
        : {
            sign_up: {
              bot: update.riskScores.signUp.bot,
              free_trial_abuse: update.riskScores.signUp.freeTrialAbuse,
            },
          },
  });
}

/** Either read of a user: a server's has more fields, which this does not read. */
export function baseUserFromJson(json: WireClientUser, selectedTeam: Team | null): BaseUser {
  const restrictedReason = json.restricted_reason ?? null;
  return {
    id: json.id,
    displayName: json.display_name ?? null,
    primaryEmail: json.primary_email ?? null,
    primaryEmailVerified: json.primary_email_verified === true,
    profileImageUrl: json.profile_image_url ?? null,
    signedUpAt: new Date(json.signed_up_at_millis),
    clientMetadata: json.client_metadata ?? null,
    clientReadOnlyMetadata: json.client_read_only_metadata ?? null,
    hasPassword: json.has_password === true,
    emailAuthEnabled: json.auth_with_email === true,
    otpAuthEnabled: json.otp_auth_enabled === true,
    passkeyAuthEnabled: json.passkey_auth_enabled === true,
    isMultiFactorRequired: json.requires_totp_mfa === true,
    isAnonymous: json.is_anonymous === true,
    isRestricted: json.is_restricted === true || restrictedReason !== null,
    restrictedReason,
    oauthProviders: (json.oauth_providers ?? []).map((provider) => ({ id: provider.id })),
    selectedTeamId: json.selected_team_id ?? null,
    selectedTeam,
    toClientJson: () => structuredClone(json),
  };
}
