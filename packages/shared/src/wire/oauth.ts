/** A user's OAuth providers and connected accounts (PROTOCOL.md §3.15). */

export type WireClientOAuthProvider = {
  user_id: string;
  id: string;
  email?: string | undefined;
  provider_config_id: string;
  type: string;
  allow_sign_in: boolean;
  allow_connected_accounts: boolean;
};

export type WireServerOAuthProvider = WireClientOAuthProvider & { account_id: string };

export type WireConnectedAccount = { user_id: string; provider: string; provider_account_id: string };

/** `POST /connected-accounts/…/access-token`. */
export type WireProviderAccessToken = { access_token: string };

/** `POST /auth/oauth/token` with the authorization-code grant: RFC 6749's answer, with the reference's additions. */
export type WireOAuthTokenResponse = {
  access_token: string;
  refresh_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  is_new_user: boolean;
  newUser: boolean;
  afterCallbackRedirectUrl: string | null;
  after_callback_redirect_url: string | null;
};
