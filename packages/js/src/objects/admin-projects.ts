import type {
  WireAdminProject,
  WireAdminProjectConfig,
  WireConfigString,
  WireOnboardingStatus,
} from "@gatehouse/shared";
import { clientConfigFromJson, type Project, type ProjectConfig } from "./projects.ts";
import { call, defined, type Scope } from "./scope.ts";

// The project as its owners and the admin app see it: settings, config and the calls to change them. Apart from
// projects.ts (what clients see), so that a browser bundle does not carry it.

export type AdminOAuthProviderConfig = {
  id: string;
  type: "shared" | "standard";
  clientId?: string;
  clientSecret?: string;
  facebookConfigId?: string;
  microsoftTenantId?: string;
  appleBundleIds?: string[];
};

export type AdminEmailConfig =
  | { type: "shared" }
  | {
      type: "standard";
      host: string;
      port: number;
      username: string;
      password: string;
      senderName: string;
      senderEmail: string;
    };

export type AdminProjectConfig = Omit<ProjectConfig, "oauthProviders"> & {
  readonly allowLocalhost: boolean;
  readonly oauthProviders: readonly AdminOAuthProviderConfig[];
  readonly emailConfig?: AdminEmailConfig;
  readonly emailTheme: string | null;
  readonly domains: readonly { domain: string; handlerPath: string }[];
  readonly createTeamOnSignUp: boolean;
  readonly teamCreatorDefaultPermissions: readonly { id: string }[];
  readonly teamMemberDefaultPermissions: readonly { id: string }[];
  readonly userDefaultPermissions: readonly { id: string }[];
  readonly oauthAccountMergeStrategy: "link_method" | "raise_error" | "allow_duplicates";
};

export type AdminProjectConfigUpdateOptions = Partial<
  Omit<AdminProjectConfig, "oauthProviders" | "domains" | "emailConfig" | "emailTheme">
> & {
  oauthProviders?: AdminOAuthProviderConfig[];
  domains?: { domain: string; handlerPath: string }[];
  emailConfig?: AdminEmailConfig;
  emailTheme?: string;
};

export type ProjectOnboardingStatus = WireOnboardingStatus;

export type AdminProjectUpdateOptions = {
  displayName?: string;
  description?: string | null;
  isProductionMode?: boolean;
  onboardingStatus?: ProjectOnboardingStatus;
  logoUrl?: string | null;
  logoFullUrl?: string | null;
  logoDarkModeUrl?: string | null;
  logoFullDarkModeUrl?: string | null;
  config?: AdminProjectConfigUpdateOptions;
};

export type AdminProjectCreateOptions = Omit<AdminProjectUpdateOptions, "displayName"> & {
  displayName: string;
  teamId: string;
};

export type ConfigLevel = "branch" | "environment";

/** The project as its owners see it, with the management calls (PROTOCOL.md §3.10, §9). */
export type AdminProject = Omit<Project, "config"> & {
  readonly description: string | null;
  readonly createdAt: Date;
  readonly isProductionMode: boolean;
  readonly isDevelopmentEnvironment: boolean;
  readonly ownerTeamId: string | null;
  readonly onboardingStatus: ProjectOnboardingStatus;
  readonly logoUrl: string | null | undefined;
  readonly logoFullUrl: string | null | undefined;
  readonly logoDarkModeUrl: string | null | undefined;
  readonly logoFullDarkModeUrl: string | null | undefined;
  readonly config: AdminProjectConfig;
  update(update: AdminProjectUpdateOptions): Promise<void>;
  delete(): Promise<void>;
  /** The fully rendered config. */
  getConfig(): Promise<Record<string, unknown>>;
  /** Changes keys of the environment-level override (dot notation allowed). */
  updateConfig(override: Record<string, unknown>): Promise<void>;
  getConfigOverride(level: ConfigLevel): Promise<Record<string, unknown>>;
  replaceConfigOverride(level: ConfigLevel, config: Record<string, unknown>): Promise<void>;
  resetConfigOverrideKeys(level: ConfigLevel, keys: string[]): Promise<void>;
};

function adminConfigFromJson(config: Partial<WireAdminProjectConfig>): AdminProjectConfig {
  const email = config.email_config;
  return {
    ...clientConfigFromJson(config),
    allowLocalhost: config.allow_localhost === true,
    oauthProviders: (config.oauth_providers ?? []).map((p) => ({
      id: p.id,
      type: p.type,
      ...defined({
        clientId: p.client_id,
        clientSecret: p.client_secret,
        facebookConfigId: p.facebook_config_id,
        microsoftTenantId: p.microsoft_tenant_id,
        appleBundleIds: p.apple_bundle_ids,
      }),
    })),
    ...(email
      ? {
          emailConfig:
            email.type === "standard"
              ? // The type promises every field; the wire leaves out the ones the project's config does not set.
                ({
                  type: "standard",
                  host: email.host,
                  port: email.port,
                  username: email.username,
                  password: email.password,
                  senderName: email.sender_name,
                  senderEmail: email.sender_email,
                } as AdminEmailConfig)
              : { type: "shared" },
        }
      : {}),
    emailTheme: config.email_theme ?? null,
    domains: (config.domains ?? []).map((d) => ({ domain: d.domain, handlerPath: d.handler_path })),
    createTeamOnSignUp: config.create_team_on_sign_up === true,
    teamCreatorDefaultPermissions: config.team_creator_default_permissions ?? [],
    teamMemberDefaultPermissions: config.team_member_default_permissions ?? [],
    userDefaultPermissions: config.user_default_permissions ?? [],
    // Read as sent: the admin read always has it; the fallback for a read without config leaves it undefined.
    oauthAccountMergeStrategy:
      config.oauth_account_merge_strategy as AdminProjectConfig["oauthAccountMergeStrategy"],
  };
}

function configUpdateToWire(config: AdminProjectConfigUpdateOptions) {
  const email = config.emailConfig;
  return defined({
    sign_up_enabled: config.signUpEnabled,
    credential_enabled: config.credentialEnabled,
    magic_link_enabled: config.magicLinkEnabled,
    passkey_enabled: config.passkeyEnabled,
    client_team_creation_enabled: config.clientTeamCreationEnabled,
    client_user_deletion_enabled: config.clientUserDeletionEnabled,
    allow_localhost: config.allowLocalhost,
    allow_user_api_keys: config.allowUserApiKeys,
    allow_team_api_keys: config.allowTeamApiKeys,
    create_team_on_sign_up: config.createTeamOnSignUp,
    oauth_account_merge_strategy: config.oauthAccountMergeStrategy,
    oauth_providers: config.oauthProviders?.map((p) =>
      defined({
        id: p.id,
        type: p.type,
        client_id: p.clientId,
        client_secret: p.clientSecret,
        facebook_config_id: p.facebookConfigId,
        microsoft_tenant_id: p.microsoftTenantId,
        apple_bundle_ids: p.appleBundleIds,
      }),
    ),
    domains: config.domains?.map((d) => ({ domain: d.domain, handler_path: d.handlerPath })),
    email_config:
      email === undefined
        ? undefined
        : email.type === "standard"
          ? {
              type: "standard",
              host: email.host,
              port: email.port,
              username: email.username,
              password: email.password,
              sender_name: email.senderName,
              sender_email: email.senderEmail,
            }
          : { type: "shared" },
    email_theme: config.emailTheme,
    team_creator_default_permissions: config.teamCreatorDefaultPermissions,
    team_member_default_permissions: config.teamMemberDefaultPermissions,
    user_default_permissions: config.userDefaultPermissions,
  });
}

export function projectUpdateToWire(update: AdminProjectUpdateOptions) {
  return defined({
    display_name: update.displayName,
    description: update.description,
    is_production_mode: update.isProductionMode,
    onboarding_status: update.onboardingStatus,
    logo_url: update.logoUrl,
    logo_full_url: update.logoFullUrl,
    logo_dark_mode_url: update.logoDarkModeUrl,
    logo_full_dark_mode_url: update.logoFullDarkModeUrl,
    config: update.config === undefined ? undefined : configUpdateToWire(update.config),
  });
}

/** An admin project read; `scope` must carry admin access to that project. */
export function adminProjectFromJson(scope: Scope, json: WireAdminProject): AdminProject {
  const changed = () => scope.ctx.invalidate("project", "adminProject", "ownedProjects");
  return {
    id: json.id,
    displayName: json.display_name,
    description: json.description ?? null,
    createdAt: new Date(json.created_at_millis),
    isProductionMode: json.is_production_mode === true,
    isDevelopmentEnvironment: json.is_development_environment === true,
    ownerTeamId: json.owner_team_id ?? null,
    onboardingStatus: json.onboarding_status ?? "completed",
    logoUrl: json.logo_url,
    logoFullUrl: json.logo_full_url,
    logoDarkModeUrl: json.logo_dark_mode_url,
    logoFullDarkModeUrl: json.logo_full_dark_mode_url,
    config: adminConfigFromJson(json.config ?? {}),
    async update(update) {
      await call(scope, "/internal/projects/current", { method: "PATCH", body: projectUpdateToWire(update) });
      changed();
    },
    async delete() {
      await call(scope, "/internal/projects/current", { method: "DELETE" });
      changed();
    },
    async getConfig() {
      const result = await call<WireConfigString>(scope, "/internal/config");
      return JSON.parse(result.config_string);
    },
    async updateConfig(override) {
      await call(scope, "/internal/config/override/environment", {
        method: "PATCH",
        body: { config_override_string: JSON.stringify(override) },
      });
      changed();
    },
    async getConfigOverride(level) {
      const result = await call<WireConfigString>(scope, `/internal/config/override/${level}`);
      return JSON.parse(result.config_string);
    },
    async replaceConfigOverride(level, config) {
      await call(scope, `/internal/config/override/${level}`, {
        method: "PUT",
        body: {
          config_string: JSON.stringify(config),
          ...(level === "branch" ? { source: { type: "unlinked" } } : {}),
        },
      });
      changed();
    },
    async resetConfigOverrideKeys(level, keys) {
      await call(scope, `/internal/config/override/${level}/reset-keys`, { method: "POST", body: { keys } });
      changed();
    },
  };
}
