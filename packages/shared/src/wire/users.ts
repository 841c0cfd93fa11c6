/** The user object (PROTOCOL.md §3.2): what a client sees, and the server read that adds the server-only fields. */
import type { WireClientTeam, WireServerTeam } from "./teams.ts";

export type WireRestrictedReasonType = "anonymous" | "email_not_verified" | "restricted_by_administrator";
export type WireRestrictedReason = { type: WireRestrictedReasonType };

/** A user's sign-in provider as listed on the user. */
export type WireUserOAuthProvider = { id: string; account_id: string; email: string | null };

export type WireRiskScores = { sign_up: { bot: number; free_trial_abuse: number } };

export type WireClientUser = {
  id: string;
  primary_email: string | null;
  primary_email_verified: boolean;
  display_name: string | null;
  client_metadata: unknown;
  client_read_only_metadata: unknown;
  profile_image_url: string | null;
  signed_up_at_millis: number;
  has_password: boolean;
  auth_with_email: boolean;
  oauth_providers: WireUserOAuthProvider[];
  selected_team_id: string | null;
  selected_team: WireClientTeam | null;
  requires_totp_mfa: boolean;
  otp_auth_enabled: boolean;
  passkey_auth_enabled: boolean;
  is_anonymous: boolean;
  is_restricted: boolean;
  restricted_reason: WireRestrictedReason | null;
  restricted_by_admin: boolean;
  restricted_by_admin_reason: string | null;
};

/** Server and admin reads: the client fields, the server team, and the server-only fields. */
export type WireServerUser = Omit<WireClientUser, "selected_team"> & {
  selected_team: WireServerTeam | null;
  primary_email_auth_enabled: boolean;
  server_metadata: unknown;
  last_active_at_millis: number;
  restricted_by_admin_private_details: string | null;
  country_code: string | null;
  risk_scores: WireRiskScores;
};

/** Either read: what the SDK gets when the same call may run as client or server. */
export type WireUser = WireClientUser | WireServerUser;

/**
 * `GET /users` with `include_total=true` (a Gatehouse extension) adds the filter's count: exact up to a limit
 * (10,000 by default), an estimate past it (`total_count_is_estimate`).
 */
export type WireUserPage = {
  items: WireServerUser[];
  is_paginated: true;
  pagination: { next_cursor: string | null };
  total_count?: number;
  total_count_is_estimate?: boolean;
};

/** `PATCH /users/me` as a client. */
export type WireUserUpdate = {
  display_name?: string | null | undefined;
  profile_image_url?: string | null | undefined;
  client_metadata?: unknown;
  selected_team_id?: string | null | undefined;
  totp_secret_base64?: string | null | undefined;
  otp_auth_enabled?: boolean | undefined;
  passkey_auth_enabled?: boolean | undefined;
  primary_email?: string | null | undefined;
};

/** Fields a server may write on create and update, beside a client's. */
type WireServerUserWrite = WireUserUpdate & {
  client_read_only_metadata?: unknown;
  server_metadata?: unknown;
  primary_email_verified?: boolean | undefined;
  primary_email_auth_enabled?: boolean | undefined;
  password?: string | null | undefined;
  /** Modular Crypt Format; not with `password`. */
  password_hash?: string | undefined;
  restricted_by_admin?: boolean | undefined;
  restricted_by_admin_reason?: string | null | undefined;
  restricted_by_admin_private_details?: string | null | undefined;
  country_code?: string | null | undefined;
  risk_scores?: WireRiskScores | undefined;
};

/** `PATCH /users/{id}` as a server: `is_anonymous` only ever upgrades. */
export type WireServerUserUpdate = WireServerUserWrite & { is_anonymous?: false | undefined };

/** `POST /users`. */
export type WireServerUserCreate = WireServerUserWrite & {
  is_anonymous?: boolean | undefined;
  oauth_providers?: { id: string; account_id: string; email?: string | null | undefined }[] | undefined;
};
