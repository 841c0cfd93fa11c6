/** The project as clients see it and as its owners do (PROTOCOL.md §3.10). */

export type WireDomain = { domain: string; handler_path: string };
export type WireIdRef = { id: string };

export type WireClientProjectConfig = {
  sign_up_enabled: boolean;
  credential_enabled: boolean;
  magic_link_enabled: boolean;
  passkey_enabled: boolean;
  client_team_creation_enabled: boolean;
  client_user_deletion_enabled: boolean;
  allow_user_api_keys: boolean;
  allow_team_api_keys: boolean;
  allow_localhost: boolean;
  enabled_oauth_providers: WireIdRef[];
  domains: WireDomain[];
};

/** `GET /projects/current`. */
export type WireClientProject = { id: string; display_name: string; config: WireClientProjectConfig };

export type WireOnboardingStatus =
  | "config_choice"
  | "apps_selection"
  | "auth_setup"
  | "domain_setup"
  | "email_theme_setup"
  | "payments_setup"
  | "welcome"
  | "completed";

export type WireProjectOAuthProvider = {
  provider_config_id: string;
  id: string;
  type: "shared" | "standard";
  client_id?: string | undefined;
  client_secret?: string | undefined;
  facebook_config_id?: string | undefined;
  microsoft_tenant_id?: string | undefined;
  apple_bundle_ids?: string[] | undefined;
};

export type WireEmailConfig = {
  type: "shared" | "standard";
  host?: string | undefined;
  port?: number | undefined;
  username?: string | undefined;
  password?: string | undefined;
  sender_name?: string | undefined;
  sender_email?: string | undefined;
};

export type WireOAuthAccountMergeStrategy = "link_method" | "raise_error" | "allow_duplicates";

/** The legacy config view of the admin read (deprecated by the protocol, still what the SDKs read). */
export type WireAdminProjectConfig = WireClientProjectConfig & {
  oauth_providers: WireProjectOAuthProvider[];
  email_config: WireEmailConfig;
  email_theme: string;
  create_team_on_sign_up: boolean;
  team_creator_default_permissions: WireIdRef[];
  team_member_default_permissions: WireIdRef[];
  user_default_permissions: WireIdRef[];
  oauth_account_merge_strategy: WireOAuthAccountMergeStrategy;
};

/** `GET /internal/projects/current`, the items of `/internal/projects`, and the create answer. */
export type WireAdminProject = {
  id: string;
  display_name: string;
  description: string;
  logo_url: string | null;
  logo_full_url: string | null;
  logo_dark_mode_url: string | null;
  logo_full_dark_mode_url: string | null;
  created_at_millis: number;
  is_production_mode: boolean;
  is_development_environment: boolean;
  owner_team_id: string | null;
  onboarding_status: WireOnboardingStatus;
  onboarding_state: Record<string, unknown> | null;
  config: WireAdminProjectConfig;
};

/** `GET /internal/config` and `GET /internal/config/override/{level}`: the config as a JSON string. */
export type WireConfigString = { config_string: string };
