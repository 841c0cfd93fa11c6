/**
 * Sessions, the token answers of sign-in, sign-up and refresh (PROTOCOL.md §3.7, §4), CLI login (§4.9), and the access
 * token's claims (§5.1).
 */
import type { WireRestrictedReason } from "./users.ts";

/** Where a session was last used; note the camelCase, as the protocol has it. */
export type WireIpInfo = {
  ip: string;
  countryCode: string | null;
  regionCode: string | null;
  cityName: string | null;
  latitude: number | null;
  longitude: number | null;
  tzIdentifier: string | null;
};

export type WireSession = {
  id: string;
  user_id: string;
  created_at: number;
  last_used_at: number;
  is_impersonation: boolean;
  is_current_session: boolean;
  last_used_at_end_user_ip_info?: WireIpInfo | undefined;
  /** Gatehouse: the browser's user agent at sign-in or at the last refresh. */
  last_used_user_agent?: string | null | undefined;
};

/** `POST /auth/sessions` (server access): a session made for a user. */
export type WireSessionTokens = { refresh_token: string; access_token: string };

/** Password sign-in and sign-up, anonymous sign-up. */
export type WireSignInTokens = WireSessionTokens & { user_id: string };

/** Sign-ins that may create the user (email code, OAuth-less MFA step, passkey): they say whether it did. */
export type WireSignInOrUpTokens = WireSignInTokens & { is_new_user: boolean };

/** `POST /auth/sessions/current/refresh`. */
export type WireRefreshedToken = { access_token: string };

/**
 * Exactly the claims of PROTOCOL.md §5.1, in that order: the server signs this set and the SDK decodes it. Times are
 * in seconds since the Unix epoch.
 */
export type AccessTokenClaims = {
  sub: string;
  iat: number;
  exp: number;
  iss: string;
  aud: string;
  project_id: string;
  branch_id: "main";
  refresh_token_id: string;
  role: "authenticated";
  name: string | null;
  email: string | null;
  email_verified: boolean;
  selected_team_id: string | null;
  signed_up_at: number;
  is_anonymous: boolean;
  is_restricted: boolean;
  restricted_reason: WireRestrictedReason | null;
  requires_totp_mfa: boolean;
};

/** `POST /auth/cli`: the code the browser confirms, and the one the tool polls with. */
export type WireCliLoginStarted = { polling_code: string; login_code: string; expires_at: string };

/** `POST /auth/cli/poll`: the refresh token comes once, with a 201. */
export type WireCliLoginPoll =
  | { status: "waiting" | "expired" | "used" }
  | { status: "success"; refresh_token: string };
