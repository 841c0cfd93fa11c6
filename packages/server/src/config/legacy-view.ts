/**
 * The deprecated snake_case `config` object of the project reads (PROTOCOL §3.10), and the reverse: a legacy
 * snake_case config update turned into a dot-notation override patch.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { formatIssues, problemText } from "./issues.ts";
import { type ConfigOverride, getOwn, isPlainObject, type JsonObject, type JsonValue } from "./json.ts";
import { CONFIG_KEY_SEGMENT_PATTERN } from "./keys.ts";
import { overrideToReach } from "./override.ts";
import { PERMISSION_ID_PATTERN } from "./permissions.ts";
import {
  ACCOUNT_MERGE_STRATEGIES,
  type AccountMergeStrategy,
  OAUTH_PROVIDER_TYPES,
  type OAuthProviderType,
  type RenderedConfig,
} from "./schema.ts";

// ---------------------------------------------------------------------------------------------------------------
// Read views
// ---------------------------------------------------------------------------------------------------------------

export type LegacyOAuthProviderView = {
  provider_config_id: string;
  id: OAuthProviderType;
  type: "shared" | "standard";
  client_id?: string;
  client_secret?: string;
  facebook_config_id?: string;
  microsoft_tenant_id?: string;
  apple_bundle_ids?: string[];
};

export type LegacyDomainView = { domain: string; handler_path: string };

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

export type LegacyConfigView = {
  allow_localhost: boolean;
  sign_up_enabled: boolean;
  credential_enabled: boolean;
  magic_link_enabled: boolean;
  passkey_enabled: boolean;
  client_team_creation_enabled: boolean;
  client_user_deletion_enabled: boolean;
  allow_user_api_keys: boolean;
  allow_team_api_keys: boolean;
  oauth_providers: LegacyOAuthProviderView[];
  enabled_oauth_providers: { id: OAuthProviderType }[];
  domains: LegacyDomainView[];
  email_config: LegacyEmailConfigView;
  /** Omitted when no theme is selected and no default was passed. */
  email_theme?: string;
  create_team_on_sign_up: boolean;
  team_creator_default_permissions: { id: string }[];
  team_member_default_permissions: { id: string }[];
  user_default_permissions: { id: string }[];
  oauth_account_merge_strategy: AccountMergeStrategy;
};

export type ClientProjectConfig = {
  sign_up_enabled: boolean;
  credential_enabled: boolean;
  magic_link_enabled: boolean;
  passkey_enabled: boolean;
  client_team_creation_enabled: boolean;
  client_user_deletion_enabled: boolean;
  allow_user_api_keys: boolean;
  allow_team_api_keys: boolean;
  allow_localhost: boolean;
  enabled_oauth_providers: { id: OAuthProviderType }[];
  domains: LegacyDomainView[];
};

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

function enabledOAuthProvidersView(config: RenderedConfig): { id: OAuthProviderType }[] {
  const types = new Set<OAuthProviderType>();
  for (const provider of Object.values(config.auth.oauth.providers)) {
    if (provider.allowSignIn) types.add(provider.type);
  }
  return [...types].sort(compare).map((id) => ({ id }));
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
    sign_up_enabled: config.auth.allowSignUp,
    credential_enabled: config.auth.password.allowSignIn,
    magic_link_enabled: config.auth.otp.allowSignIn,
    passkey_enabled: config.auth.passkey.allowSignIn,
    client_team_creation_enabled: config.teams.allowClientTeamCreation,
    client_user_deletion_enabled: config.users.allowClientUserDeletion,
    allow_user_api_keys: config.apiKeys.enabled.user,
    allow_team_api_keys: config.apiKeys.enabled.team,
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
    sign_up_enabled: config.auth.allowSignUp,
    credential_enabled: config.auth.password.allowSignIn,
    magic_link_enabled: config.auth.otp.allowSignIn,
    passkey_enabled: config.auth.passkey.allowSignIn,
    client_team_creation_enabled: config.teams.allowClientTeamCreation,
    client_user_deletion_enabled: config.users.allowClientUserDeletion,
    allow_user_api_keys: config.apiKeys.enabled.user,
    allow_team_api_keys: config.apiKeys.enabled.team,
    allow_localhost: config.domains.allowLocalhost,
    enabled_oauth_providers: enabledOAuthProvidersView(config),
    domains: domainsView(config),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Legacy update
// ---------------------------------------------------------------------------------------------------------------

const optionalText = z.string().nullish();

const legacyOAuthProviderUpdateSchema = z.strictObject({
  id: z.enum(OAUTH_PROVIDER_TYPES),
  type: z.enum(["shared", "standard"]),
  /** Accepted so that a read object can be sent back; becomes the config key (default: `id`). */
  provider_config_id: z
    .string()
    .regex(CONFIG_KEY_SEGMENT_PATTERN, {
      error: "may only contain letters, digits and the characters _ : $ -",
    })
    .optional(),
  /** Older clients send this; false keeps the provider configured but not offered for sign-in. */
  enabled: z.boolean().optional(),
  client_id: optionalText,
  client_secret: optionalText,
  facebook_config_id: optionalText,
  microsoft_tenant_id: optionalText,
  apple_bundle_ids: z.array(z.string().min(1)).nullish(),
});

const legacyPermissionListSchema = z.array(
  z.strictObject({
    id: z.string().regex(PERMISSION_ID_PATTERN, {
      error:
        'permission ids may only contain lowercase letters, digits, "_" and ":", optionally after a leading "$"',
    }),
  }),
);

/** A snake_case legacy config update (`PATCH /internal/projects/current`, `POST /internal/projects`); all optional. */
export const legacyConfigUpdateSchema = z.strictObject({
  sign_up_enabled: z.boolean().optional(),
  credential_enabled: z.boolean().optional(),
  magic_link_enabled: z.boolean().optional(),
  passkey_enabled: z.boolean().optional(),
  client_team_creation_enabled: z.boolean().optional(),
  client_user_deletion_enabled: z.boolean().optional(),
  allow_localhost: z.boolean().optional(),
  allow_user_api_keys: z.boolean().optional(),
  allow_team_api_keys: z.boolean().optional(),
  create_team_on_sign_up: z.boolean().optional(),
  require_email_verification: z.boolean().optional(),
  oauth_account_merge_strategy: z.enum(ACCOUNT_MERGE_STRATEGIES).optional(),
  oauth_providers: z
    .array(legacyOAuthProviderUpdateSchema)
    .superRefine((providers, ctx) => {
      const seen = new Set<string>();
      providers.forEach((provider, index) => {
        const key = provider.provider_config_id ?? provider.id;
        if (seen.has(key)) {
          ctx.addIssue({
            code: "custom",
            path: [index],
            message: `provider "${key}" is listed more than once`,
          });
        }
        seen.add(key);
      });
    })
    .optional(),
  domains: z
    .array(
      z.strictObject({
        domain: z.string().regex(/^https?:\/\/\S+$/, {
          error:
            "must be a URL starting with http:// or https:// (wildcards such as https://*.example.com are allowed)",
        }),
        handler_path: z.string().startsWith("/", { error: 'must be a path starting with "/"' }).optional(),
      }),
    )
    .optional(),
  email_config: z
    .strictObject({
      type: z.enum(["shared", "standard"]),
      host: optionalText,
      port: z.number().int().min(1).max(65535).nullish(),
      username: optionalText,
      password: optionalText,
      sender_name: optionalText,
      sender_email: optionalText,
    })
    .optional(),
  email_theme: z.string().min(1).optional(),
  team_creator_default_permissions: legacyPermissionListSchema.optional(),
  team_member_default_permissions: legacyPermissionListSchema.optional(),
  user_default_permissions: legacyPermissionListSchema.optional(),
});

export type LegacyConfigUpdate = z.infer<typeof legacyConfigUpdateSchema>;

/** Validates a legacy config update, with problems in the same style as the config renderer. */
export function parseLegacyConfigUpdate(
  input: unknown,
): { ok: true; update: LegacyConfigUpdate } | { ok: false; problems: string[] } {
  const parsed = legacyConfigUpdateSchema.safeParse(input, { reportInput: true });
  if (parsed.success) return { ok: true, update: parsed.data };
  return {
    ok: false,
    problems: formatIssues(legacyConfigUpdateSchema, parsed.error.issues).map((p) => problemText(p)),
  };
}

/**
 * Deterministic ids for list entries that become record entries: a short hash of the value, so the same domain
 * (or bundle) gets the same id on every update. Repeated values get a numbered suffix.
 */
function stableIds(prefix: string, values: readonly string[]): string[] {
  const used = new Set<string>();
  return values.map((value) => {
    const base = `${prefix}-${createHash("sha256").update(value).digest("hex").slice(0, 12)}`;
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
    used.add(id);
    return id;
  });
}

/**
 * A default permission list as the environment-level value of its set. The set is a record, so entries the lower
 * levels define (like `team_admin` for team creators in a new project) must be written as `null` to be removed.
 */
function permissionSet(list: readonly { id: string }[], lowerSets: unknown, set: string): JsonValue {
  const lower = isPlainObject(lowerSets) ? getOwn(lowerSets, set) : undefined;
  return overrideToReach(lower, Object.fromEntries(list.map(({ id }) => [id, true])));
}

/** Copies the entries of `source` whose value is neither undefined nor null. */
function presentOnly(source: Record<string, JsonObject[string] | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(source))
    if (value !== undefined && value !== null) out[key] = value;
  return out;
}

/**
 * Turns a legacy config update into a dot-notation override patch for `mergeOverrideOverride`. Only the keys present
 * in the update appear. List-valued settings replace their whole record: `domains` → `domains.trustedDomains`
 * (ids derived from the domain), `oauth_providers` → `auth.oauth.providers` (keyed by `provider_config_id`, else by
 * provider id), `email_config` → `emails.server`, default permission lists → `rbac.defaultPermissions.*`.
 * `lower` is what the levels below the one being written produce (`mergeLevelOverrides` of them): default permission
 * lists remove what those levels grant by default.
 */
export function legacyConfigUpdateToOverride(
  update: LegacyConfigUpdate,
  lower: JsonObject = {},
): ConfigOverride {
  const lowerRbac = getOwn(lower, "rbac");
  const lowerDefaults = isPlainObject(lowerRbac) ? getOwn(lowerRbac, "defaultPermissions") : undefined;
  const providers = update.oauth_providers?.map((provider) => {
    const bundleIds = provider.apple_bundle_ids ?? undefined;
    const bundles = bundleIds
      ? Object.fromEntries(stableIds("bundle", bundleIds).map((id, i) => [id, { bundleId: bundleIds[i]! }]))
      : undefined;
    return [
      provider.provider_config_id ?? provider.id,
      presentOnly({
        type: provider.id,
        isShared: provider.type === "shared",
        clientId: provider.client_id,
        clientSecret: provider.client_secret,
        facebookConfigId: provider.facebook_config_id,
        microsoftTenantId: provider.microsoft_tenant_id,
        appleBundles: bundles,
        allowSignIn: provider.enabled ?? true,
        allowConnectedAccounts: true,
      }),
    ] as const;
  });

  const domains = update.domains;
  const domainIds = domains
    ? stableIds(
        "domain",
        domains.map((d) => d.domain),
      )
    : [];

  const email = update.email_config;
  const emailServer =
    email === undefined
      ? undefined
      : email.type === "shared"
        ? { isShared: true }
        : presentOnly({
            isShared: false,
            provider: "smtp",
            host: email.host,
            port: email.port,
            username: email.username,
            password: email.password,
            senderName: email.sender_name,
            senderEmail: email.sender_email,
          });

  return presentOnly({
    "auth.allowSignUp": update.sign_up_enabled,
    "auth.password.allowSignIn": update.credential_enabled,
    "auth.otp.allowSignIn": update.magic_link_enabled,
    "auth.passkey.allowSignIn": update.passkey_enabled,
    "auth.oauth.accountMergeStrategy": update.oauth_account_merge_strategy,
    "auth.oauth.providers": providers ? Object.fromEntries(providers) : undefined,
    "teams.allowClientTeamCreation": update.client_team_creation_enabled,
    "teams.createPersonalTeamOnSignUp": update.create_team_on_sign_up,
    "users.allowClientUserDeletion": update.client_user_deletion_enabled,
    "onboarding.requireEmailVerification": update.require_email_verification,
    "domains.allowLocalhost": update.allow_localhost,
    "domains.trustedDomains": domains
      ? Object.fromEntries(
          domains.map((d, i) => [
            domainIds[i]!,
            { baseUrl: d.domain, handlerPath: d.handler_path ?? "/handler" },
          ]),
        )
      : undefined,
    "apiKeys.enabled.user": update.allow_user_api_keys,
    "apiKeys.enabled.team": update.allow_team_api_keys,
    "emails.server": emailServer,
    "emails.selectedThemeId": update.email_theme,
    "rbac.defaultPermissions.teamCreator": update.team_creator_default_permissions
      ? permissionSet(update.team_creator_default_permissions, lowerDefaults, "teamCreator")
      : undefined,
    "rbac.defaultPermissions.teamMember": update.team_member_default_permissions
      ? permissionSet(update.team_member_default_permissions, lowerDefaults, "teamMember")
      : undefined,
    "rbac.defaultPermissions.signUp": update.user_default_permissions
      ? permissionSet(update.user_default_permissions, lowerDefaults, "signUp")
      : undefined,
  });
}
