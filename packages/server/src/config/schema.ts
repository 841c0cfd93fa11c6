/**
 * The schema of the RENDERED project config: every level's override merged over these defaults.
 *
 * Conventions:
 * - Objects are strict: a key the schema does not know is a problem. Records (maps from an id to an entry) accept
 *   any key that matches their key pattern; their entries are strict objects again.
 * - `null` anywhere in the merged overrides means "no value here": the key falls back to its default (or is absent
 *   when it has none), and a `null` record entry removes that entry. This is how a higher level deletes something a
 *   lower level defined, since overrides have no unset.
 */
import { z } from "zod";
import { PLACEHOLDER_TEMPLATE_SOURCE } from "../email-rendering/built-in-templates.ts";
import { PLACEHOLDER_THEME_SOURCE } from "../email-rendering/built-in-themes.ts";
import {
  DEVELOPMENT_LOOPBACK_FACTOR,
  MAX_LIMIT,
  MAX_WINDOW_SECONDS,
  RATE_LIMIT_RULE_IDS,
  type RateLimitRuleId,
} from "../rate-limit/rules.ts";
import { withEmailDefaults } from "./email-defaults.ts";
import { isPlainObject } from "./json.ts";
import { CONFIG_KEY_SEGMENT_PATTERN } from "./keys.ts";
import {
  APPLE_ID_PATTERN,
  CUSTOM_OIDC_PROVIDER_TYPE,
  checkOAuthProviderEntry,
  isOAuthEndpointUrl,
  OAUTH_SCOPE_LIST,
  PKCS8_PEM,
} from "./oauth-provider-rules.ts";
import { paymentsConfigSchema } from "./payments.ts";
import { CUSTOM_PERMISSION_ID_PATTERN, PERMISSION_ID_PATTERN } from "./permissions.ts";
import { dropNullEntries, entry, record, section } from "./schema-blocks.ts";

export const OAUTH_PROVIDER_TYPES = [
  "google",
  "github",
  "microsoft",
  "spotify",
  "facebook",
  "discord",
  "gitlab",
  "bitbucket",
  "linkedin",
  "apple",
  "x",
  "twitch",
] as const;
export type OAuthProviderType = (typeof OAUTH_PROVIDER_TYPES)[number];

/** Provider types for which shared (development) OAuth keys exist. */
export const SHARED_OAUTH_PROVIDER_TYPES = ["google", "github", "microsoft", "spotify"] as const;

export function isOAuthProviderType(value: unknown): value is OAuthProviderType {
  return typeof value === "string" && (OAUTH_PROVIDER_TYPES as readonly string[]).includes(value);
}

export { CUSTOM_OIDC_PROVIDER_TYPE };
/** What `auth.oauth.providers.<id>.type` may be: a built-in provider or the generic OpenID Connect one. */
export const OAUTH_PROVIDER_CONFIG_TYPES = [...OAUTH_PROVIDER_TYPES, CUSTOM_OIDC_PROVIDER_TYPE] as const;
export type OAuthProviderConfigType = (typeof OAUTH_PROVIDER_CONFIG_TYPES)[number];

export const ACCOUNT_MERGE_STRATEGIES = ["link_method", "raise_error", "allow_duplicates"] as const;
export type AccountMergeStrategy = (typeof ACCOUNT_MERGE_STRATEGIES)[number];

export const EMAIL_SERVER_PROVIDERS = ["smtp", "resend", "managed"] as const;
export const PERMISSION_SCOPES = ["team", "project"] as const;
export type PermissionScope = (typeof PERMISSION_SCOPES)[number];

// ---------------------------------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------------------------------

const configRecordKey = z.string().regex(CONFIG_KEY_SEGMENT_PATTERN, {
  error: "ids may only contain letters, digits and the characters _ : $ -",
});

const customPermissionKey = z.string().regex(CUSTOM_PERMISSION_ID_PATTERN, {
  error:
    'permission ids may only contain lowercase letters, digits, "_" and ":" (the "$" prefix is reserved for system permissions)',
});

const permissionReferenceKey = z.string().regex(PERMISSION_ID_PATTERN, {
  error:
    'permission ids may only contain lowercase letters, digits, "_" and ":", optionally after a leading "$"',
});

const uuidKey = z.guid({ error: "ids here must be UUIDs" });

const permissionSet = record(permissionReferenceKey, z.literal(true));

const baseUrl = z.string().regex(/^https?:\/\/\S+$/, {
  error:
    "must be a URL starting with http:// or https:// (wildcards such as https://*.example.com are allowed)",
});

const path = z.string().startsWith("/", { error: 'must be a path starting with "/"' });

/** Whether http is allowed too is decided where the URL is used (only for localhost in development). */
const oauthEndpointUrl = z.string().max(2048).refine(isOAuthEndpointUrl, {
  error: "must be an absolute http:// or https:// URL without a user name, password or #fragment",
});

/** Fills in a provider entry's `type` from its key when the key is itself a provider type (`providers.google`). */
function inferProviderTypes(value: unknown): unknown {
  const withoutNulls = dropNullEntries(value);
  if (!isPlainObject(withoutNulls)) return withoutNulls;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(withoutNulls)) {
    if (isPlainObject(item) && (item.type === undefined || item.type === null) && isOAuthProviderType(key)) {
      out[key] = { ...item, type: key };
    } else {
      out[key] = item;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------------------------------------------

const oauthProviderSchema = entry({
  type: z.enum(OAUTH_PROVIDER_CONFIG_TYPES),
  isShared: z.boolean().default(true),
  clientId: z.string().optional(),
  clientSecret: z.string().optional(),
  facebookConfigId: z.string().optional(),
  microsoftTenantId: z.string().optional(),
  appleBundles: z
    .preprocess(dropNullEntries, z.record(configRecordKey, entry({ bundleId: z.string().min(1) })))
    .optional(),
  // Apple's client secret is a JWT signed with the team's key; with these three Gatehouse mints it (the
  // reference platform's names). Without them `clientSecret` is used as it is.
  appleTeamId: z.string().regex(APPLE_ID_PATTERN, { error: "must be Apple's 10-character id" }).optional(),
  appleKeyId: z.string().regex(APPLE_ID_PATTERN, { error: "must be Apple's 10-character id" }).optional(),
  applePrivateKey: z
    .string()
    .max(10_000)
    .regex(PKCS8_PEM, { error: "must be the .p8 key file's text (-----BEGIN PRIVATE KEY----- …)" })
    .optional(),
  // Endpoint overrides (Gatehouse's own names, DECISIONS.md "OAuth providers at a project's own addresses"). `issuerUrl` (the reference's
  // name) is an OpenID issuer whose discovery document gives the endpoints; the other three win over it.
  issuerUrl: oauthEndpointUrl.optional(),
  authorizationEndpoint: oauthEndpointUrl.optional(),
  tokenEndpoint: oauthEndpointUrl.optional(),
  userInfoEndpoint: oauthEndpointUrl.optional(),
  // Of the generic OpenID Connect provider (`custom_oidc`): the scopes it asks for and its button's name.
  scope: z
    .string()
    .max(1000)
    .regex(OAUTH_SCOPE_LIST, { error: "must be scope names separated by spaces" })
    .optional(),
  displayName: z.string().min(1).max(100).optional(),
  allowSignIn: z.boolean().default(true),
  allowConnectedAccounts: z.boolean().default(true),
}).superRefine(checkOAuthProviderEntry);

const authSchema = section({
  allowSignUp: z.boolean().default(true),
  password: section({ allowSignIn: z.boolean().default(false) }),
  otp: section({ allowSignIn: z.boolean().default(false) }),
  passkey: section({ allowSignIn: z.boolean().default(false) }),
  oauth: section({
    accountMergeStrategy: z.enum(ACCOUNT_MERGE_STRATEGIES).default("link_method"),
    providers: z.preprocess(inferProviderTypes, z.record(configRecordKey, oauthProviderSchema)).prefault({}),
  }),
  signUpRules: record(configRecordKey, z.unknown()),
  signUpRulesDefaultAction: z.enum(["allow", "reject"]).default("allow"),
});

const domainsSchema = section({
  allowLocalhost: z.boolean().default(true),
  trustedDomains: record(
    configRecordKey,
    entry({
      baseUrl,
      handlerPath: path.default("/handler"),
    }),
  ),
});

const rbacSchema = section({
  permissions: record(
    customPermissionKey,
    entry({
      description: z.string().optional(),
      scope: z.enum(PERMISSION_SCOPES),
      containedPermissionIds: permissionSet,
    }),
  ),
  defaultPermissions: section({
    teamCreator: permissionSet,
    teamMember: permissionSet,
    signUp: permissionSet,
  }),
});

/** A template's theme: a theme id, or `false` for none; absent (or null) means the project's selected theme. */
const templateThemeId = z.union([uuidKey, z.literal(false)]);

const emailsSchema = z
  .preprocess(
    (value) => withEmailDefaults(dropNullEntries(value)),
    z.strictObject({
      server: section({
        isShared: z.boolean().default(true),
        provider: z.enum(EMAIL_SERVER_PROVIDERS).default("smtp"),
        host: z.string().optional(),
        port: z.number().int().min(1).max(65535).optional(),
        username: z.string().optional(),
        password: z.string().optional(),
        senderName: z.string().optional(),
        senderEmail: z.string().optional(),
      }),
      selectedThemeId: z.string(),
      themes: record(
        uuidKey,
        entry({
          displayName: z.string().default("Unnamed Theme"),
          tsxSource: z.string().default(PLACEHOLDER_THEME_SOURCE),
        }),
      ),
      templates: record(
        uuidKey,
        entry({
          displayName: z.string().default("Unnamed Template"),
          tsxSource: z.string().default(PLACEHOLDER_TEMPLATE_SOURCE),
          themeId: templateThemeId.optional(),
        }),
      ),
    }),
  )
  .prefault({});

/** A project's numbers for one rate limit; what it leaves out keeps the built-in default (rate-limit/rules.ts). */
const rateLimitOverride = entry({
  limit: z.number().int().min(1).max(MAX_LIMIT).optional(),
  windowSeconds: z.number().int().min(1).max(MAX_WINDOW_SECONDS).optional(),
}).optional();

/**
 * Gatehouse's own settings, under a name of their own so they never collide with keys of the protocol's config.
 * `rateLimits` is strict: a misspelt rule id is a 400 when the override is written, not a limit silently ignored.
 */
const gatehouseSchema = section({
  rateLimits: section(
    Object.fromEntries(RATE_LIMIT_RULE_IDS.map((id) => [id, rateLimitOverride])) as Record<
      RateLimitRuleId,
      typeof rateLimitOverride
    >,
  ),
  developmentLoopbackRateLimitFactor: z.number().int().min(1).max(1000).default(DEVELOPMENT_LOOPBACK_FACTOR),
  // Off: every sign-up scores 0, as the reference's open-source engine does. On: the documented heuristic of
  // features/sign-up-rules/risk-scores.ts fills `riskScores`, for rules that want it.
  signUpRiskHeuristics: z.boolean().default(false),
});

export const renderedConfigSchema = z.preprocess(
  dropNullEntries,
  z.strictObject({
    auth: authSchema,
    domains: domainsSchema,
    teams: section({
      createPersonalTeamOnSignUp: z.boolean().default(false),
      allowClientTeamCreation: z.boolean().default(false),
    }),
    users: section({ allowClientUserDeletion: z.boolean().default(false) }),
    onboarding: section({ requireEmailVerification: z.boolean().default(false) }),
    apiKeys: section({
      enabled: section({ user: z.boolean().default(false), team: z.boolean().default(false) }),
    }),
    rbac: rbacSchema,
    emails: emailsSchema,
    project: section({ requirePublishableClientKey: z.boolean().default(false) }),
    // The protocol's app store (`apps.installed.<app id>.enabled`); of its apps, only `analytics` changes
    // anything here (POST /analytics/events/batch).
    apps: section({ installed: record(configRecordKey, entry({ enabled: z.boolean().default(false) })) }),
    // Products, prices and items (PROTOCOL-EXTRA §2.1); cross-checks and legacy names live in payments.ts.
    payments: paymentsConfigSchema,
    // The data vault's stores (PROTOCOL-EXTRA §6.5); their entries live in `data_vault_entries`.
    dataVault: section({
      stores: record(configRecordKey, entry({ displayName: z.string().max(200).default("Unnamed Vault") })),
    }),
    gatehouse: gatehouseSchema,
  }),
);

export type RenderedConfig = z.output<typeof renderedConfigSchema>;
export type OAuthProviderConfig = RenderedConfig["auth"]["oauth"]["providers"][string];
export type TrustedDomainConfig = RenderedConfig["domains"]["trustedDomains"][string];
export type PermissionDefinitionConfig = RenderedConfig["rbac"]["permissions"][string];
export type EmailServerConfig = RenderedConfig["emails"]["server"];
export type EmailThemeConfig = RenderedConfig["emails"]["themes"][string];
export type EmailTemplateConfig = RenderedConfig["emails"]["templates"][string];
export type PaymentsConfig = RenderedConfig["payments"];

/** The config with nothing overridden: every schema default. */
export function defaultRenderedConfig(): RenderedConfig {
  return renderedConfigSchema.parse({});
}
