/**
 * The deprecated snake_case `config` objects of the project reads (PROTOCOL §3.10): the admin view and the client
 * view, both computed from the rendered config. The reverse direction, a legacy update, is in legacy-update.ts.
 */
import type { WireAdminProjectConfig, WireClientProjectConfig, WireDomain } from "@gatehouse/shared";
import {
  type AccountMergeStrategy,
  CUSTOM_OIDC_PROVIDER_TYPE,
  type OAuthProviderConfigType,
  type RenderedConfig,
} from "./schema.ts";

export type LegacyOAuthProviderView = {
  provider_config_id: string;
  id: OAuthProviderConfigType;
  type: "shared" | "standard";
  client_id?: string;
  client_secret?: string;
  facebook_config_id?: string;
  microsoft_tenant_id?: string;
  apple_bundle_ids?: string[];
};

export type LegacyDomainView = WireDomain;

export type LegacyEmailConfigView =
  | { type: "shared" }
  | {
      type: "standard";
      host?: string;
      port?: number;
      username?: string;
      password?: string;
      sender_name?: string;
      sender_email?: string;
    };

/** The wire's admin config view, with the server's narrower types where it knows more. */
export type LegacyConfigView = Omit<
  WireAdminProjectConfig,
  "oauth_providers" | "email_config" | "email_theme" | "oauth_account_merge_strategy"
> & {
  oauth_providers: LegacyOAuthProviderView[];
  email_config: LegacyEmailConfigView;
  /** Omitted when no theme is selected and no default was passed. */
  email_theme?: string;
  oauth_account_merge_strategy: AccountMergeStrategy;
};

export type ClientProjectConfig = WireClientProjectConfig;

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Copies the entries of `source` whose value is not undefined. */
function definedOnly<T extends Record<string, unknown>>(source: T): T {
  return Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined)) as T;
}

function oauthProvidersView(config: RenderedConfig): LegacyOAuthProviderView[] {
  return Object.entries(config.auth.oauth.providers)
    .map(([providerConfigId, provider]) =>
      definedOnly<LegacyOAuthProviderView>({
        provider_config_id: providerConfigId,
        id: provider.type,
        type: provider.isShared ? "shared" : "standard",
        client_id: provider.clientId,
        client_secret: provider.clientSecret,
        facebook_config_id: provider.facebookConfigId,
        microsoft_tenant_id: provider.microsoftTenantId,
        apple_bundle_ids: provider.appleBundles
          ? Object.values(provider.appleBundles)
              .map((bundle) => bundle.bundleId)
              .sort(compare)
          : undefined,
      }),
    )
    .sort((a, b) => compare(a.id, b.id) || compare(a.provider_config_id, b.provider_config_id));
}

/**
 * What an app may offer as sign-in buttons: the built-in providers by type (the SDK names them so), and generic
 * OpenID Connect providers by their config key, which is what `/auth/oauth/authorize/<id>` then finds.
 */
function enabledOAuthProvidersView(config: RenderedConfig): { id: string }[] {
  const ids = new Set<string>();
  for (const [key, provider] of Object.entries(config.auth.oauth.providers)) {
    if (provider.allowSignIn) ids.add(provider.type === CUSTOM_OIDC_PROVIDER_TYPE ? key : provider.type);
  }
  return [...ids].sort(compare).map((id) => ({ id }));
}

function domainsView(config: RenderedConfig): LegacyDomainView[] {
  return Object.values(config.domains.trustedDomains)
    .map((domain) => ({ domain: domain.baseUrl, handler_path: domain.handlerPath }))
    .sort((a, b) => compare(a.domain, b.domain) || compare(a.handler_path, b.handler_path));
}

function emailConfigView(config: RenderedConfig): LegacyEmailConfigView {
  const server = config.emails.server;
  if (server.isShared) return { type: "shared" };
  return definedOnly<LegacyEmailConfigView>({
    type: "standard",
    host: server.host,
    port: server.port,
    username: server.username,
    password: server.password,
    sender_name: server.senderName,
    sender_email: server.senderEmail,
  });
}

/** The on/off settings both views carry, in the order both answer them. */
function switchesView(config: RenderedConfig) {
  return {
    sign_up_enabled: config.auth.allowSignUp,
    credential_enabled: config.auth.password.allowSignIn,
    magic_link_enabled: config.auth.otp.allowSignIn,
    passkey_enabled: config.auth.passkey.allowSignIn,
    client_team_creation_enabled: config.teams.allowClientTeamCreation,
    client_user_deletion_enabled: config.users.allowClientUserDeletion,
    allow_user_api_keys: config.apiKeys.enabled.user,
    allow_team_api_keys: config.apiKeys.enabled.team,
  };
}

function permissionList(set: Record<string, true>): { id: string }[] {
  return Object.keys(set)
    .sort(compare)
    .map((id) => ({ id }));
}

/**
 * The deprecated `config` object of the admin project read. `emailThemeDefault` is reported as `email_theme` when
 * the config selects no theme.
 */
export function toLegacyConfigView(
  config: RenderedConfig,
  options: { emailThemeDefault?: string } = {},
): LegacyConfigView {
  return definedOnly<LegacyConfigView>({
    allow_localhost: config.domains.allowLocalhost,
    ...switchesView(config),
    oauth_providers: oauthProvidersView(config),
    enabled_oauth_providers: enabledOAuthProvidersView(config),
    domains: domainsView(config),
    email_config: emailConfigView(config),
    email_theme: config.emails.selectedThemeId ?? options.emailThemeDefault,
    create_team_on_sign_up: config.teams.createPersonalTeamOnSignUp,
    team_creator_default_permissions: permissionList(config.rbac.defaultPermissions.teamCreator),
    team_member_default_permissions: permissionList(config.rbac.defaultPermissions.teamMember),
    user_default_permissions: permissionList(config.rbac.defaultPermissions.signUp),
    oauth_account_merge_strategy: config.auth.oauth.accountMergeStrategy,
  });
}

/** The `config` object of the client project read (`GET /projects/current`). */
export function toClientProjectConfig(config: RenderedConfig): ClientProjectConfig {
  return {
    ...switchesView(config),
    allow_localhost: config.domains.allowLocalhost,
    enabled_oauth_providers: enabledOAuthProvidersView(config),
    domains: domainsView(config),
  };
}
