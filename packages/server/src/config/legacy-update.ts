/**
 * A legacy snake_case config update (`config` of `PATCH /internal/projects/current` and `POST /internal/projects`,
 * PROTOCOL §3.10 and §6): its schema, and its translation into a dot-notation override patch.
 */
import { createHash } from "node:crypto";
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import { formatIssues, problemText } from "./issues.ts";
import { type ConfigOverride, getOwn, isPlainObject, type JsonObject, type JsonValue } from "./json.ts";
import { CONFIG_KEY_SEGMENT_PATTERN } from "./keys.ts";
import { overrideToReach } from "./override.ts";
import { PERMISSION_ID_PATTERN } from "./permissions.ts";
import { ACCOUNT_MERGE_STRATEGIES, OAUTH_PROVIDER_CONFIG_TYPES, OAUTH_PROVIDER_TYPES } from "./schema.ts";

const optionalText = z.string().nullish();

const legacyOAuthProviderUpdateSchema = z.strictObject({
  /** A provider type; one that is not is the reference's INVALID_*_OAUTH_PROVIDER_ID (`checkLegacyProviderIds`). */
  id: z.string().max(100),
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
 * The legacy list names providers by type, as the reference's `ensureSharedProvider`/`ensureStandardProvider` check
 * them: a shared entry must be a built-in provider (the generic OpenID Connect one has no shared keys), a standard
 * one any provider type. Gatehouse takes shared keys for every built-in type, since an operator may supply keys for
 * any (`GATEHOUSE_OAUTH_<PROVIDER>_CLIENT_ID`), where the reference's list has four.
 */
function checkLegacyProviderIds(providers: LegacyConfigUpdate["oauth_providers"]): void {
  for (const provider of providers ?? []) {
    if (provider.type === "shared" && !(OAUTH_PROVIDER_TYPES as readonly string[]).includes(provider.id)) {
      throw knownError("INVALID_SHARED_OAUTH_PROVIDER_ID", { provider_id: provider.id });
    }
    if (
      provider.type === "standard" &&
      !(OAUTH_PROVIDER_CONFIG_TYPES as readonly string[]).includes(provider.id)
    ) {
      throw knownError("INVALID_STANDARD_OAUTH_PROVIDER_ID", { provider_id: provider.id });
    }
  }
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

/** The value at a dot-notation path of a merged (nested) config, or undefined. */
function valueAt(config: JsonObject, path: string): unknown {
  let node: unknown = config;
  for (const segment of path.split(".")) {
    if (!isPlainObject(node)) return undefined;
    node = getOwn(node, segment);
  }
  return node;
}

/** Copies the entries of `source` whose value is neither undefined nor null. */
function presentOnly(source: Record<string, JsonObject[string] | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(source))
    if (value !== undefined && value !== null) out[key] = value;
  return out;
}

/** Provider settings the legacy shape cannot express (config/schema.ts: endpoint overrides, Apple's key, …). */
const NON_LEGACY_PROVIDER_FIELDS = [
  "issuerUrl",
  "authorizationEndpoint",
  "tokenEndpoint",
  "userInfoEndpoint",
  "appleTeamId",
  "appleKeyId",
  "applePrivateKey",
  "scope",
  "displayName",
] as const;

/**
 * What a provider entry keeps through a legacy update, which rewrites the entry whole: the fields the legacy shape
 * has no name for, while the entry stays the same provider with the project's own keys. Otherwise an SDK or
 * dashboard saving its provider list would silently drop a self-hosted GitLab's URL or Apple's signing key.
 */
function keptProviderFields(previous: unknown, update: { id: string; type: string }): JsonObject {
  if (!isPlainObject(previous) || previous.type !== update.id || update.type !== "standard") return {};
  const kept: JsonObject = {};
  for (const field of NON_LEGACY_PROVIDER_FIELDS) {
    const value = getOwn(previous, field);
    if (typeof value === "string") kept[field] = value;
  }
  return kept;
}

/**
 * Turns a legacy config update into a dot-notation override patch for `mergeOverrideOverride`. Only the keys present
 * in the update appear. List-valued settings replace their whole record: `domains` → `domains.trustedDomains`
 * (ids derived from the domain), `oauth_providers` → `auth.oauth.providers` (keyed by `provider_config_id`, else by
 * provider id), `email_config` → `emails.server`, default permission lists → `rbac.defaultPermissions.*`.
 * `lower` is what the levels below the one being written produce (`mergeLevelOverrides` of them). Since records
 * merge level by level, a replaced record also names what `lower` has beyond the update as `null` (removed):
 * otherwise domains, providers, email server fields or default permissions set at the project level would stay.
 * `existing` is every level merged, the level being written included: what a rewritten provider entry keeps.
 */
export function legacyConfigUpdateToOverride(
  update: LegacyConfigUpdate,
  lower: JsonObject = {},
  existing: JsonObject = lower,
): ConfigOverride {
  checkLegacyProviderIds(update.oauth_providers);
  /** The override of `path` that leaves exactly `desired` there, whatever `lower` has; undefined stays undefined. */
  const replacing = (path: string, desired: JsonValue | undefined): JsonValue | undefined =>
    desired === undefined ? undefined : overrideToReach(valueAt(lower, path), desired);
  const permissionSet = (list: readonly { id: string }[] | undefined): JsonObject | undefined =>
    list && Object.fromEntries(list.map(({ id }) => [id, true]));

  const providers = update.oauth_providers?.map((provider) => {
    const bundleIds = provider.apple_bundle_ids ?? undefined;
    const bundles = bundleIds
      ? Object.fromEntries(stableIds("bundle", bundleIds).map((id, i) => [id, { bundleId: bundleIds[i]! }]))
      : undefined;
    const key = provider.provider_config_id ?? provider.id;
    return [
      key,
      presentOnly({
        ...keptProviderFields(valueAt(existing, `auth.oauth.providers.${key}`), provider),
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
    "auth.oauth.providers": replacing("auth.oauth.providers", providers && Object.fromEntries(providers)),
    "teams.allowClientTeamCreation": update.client_team_creation_enabled,
    "teams.createPersonalTeamOnSignUp": update.create_team_on_sign_up,
    "users.allowClientUserDeletion": update.client_user_deletion_enabled,
    "onboarding.requireEmailVerification": update.require_email_verification,
    "domains.allowLocalhost": update.allow_localhost,
    "domains.trustedDomains": replacing(
      "domains.trustedDomains",
      domains &&
        Object.fromEntries(
          domains.map((d, i) => [
            domainIds[i]!,
            { baseUrl: d.domain, handlerPath: d.handler_path ?? "/handler" },
          ]),
        ),
    ),
    "apiKeys.enabled.user": update.allow_user_api_keys,
    "apiKeys.enabled.team": update.allow_team_api_keys,
    "emails.server": replacing("emails.server", emailServer),
    "emails.selectedThemeId": update.email_theme,
    "rbac.defaultPermissions.teamCreator": replacing(
      "rbac.defaultPermissions.teamCreator",
      permissionSet(update.team_creator_default_permissions),
    ),
    "rbac.defaultPermissions.teamMember": replacing(
      "rbac.defaultPermissions.teamMember",
      permissionSet(update.team_member_default_permissions),
    ),
    "rbac.defaultPermissions.signUp": replacing(
      "rbac.defaultPermissions.signUp",
      permissionSet(update.user_default_permissions),
    ),
  });
}
