/**
 * Project config: schema and defaults, layered overrides with dot notation, rendering, the legacy snake_case views.
 * Pure functions only; the caller stores each level's override and passes it in.
 */
export {
  type InternalProjectSeedOptions,
  internalProjectOverride,
  newProjectOverride,
  TEAM_ADMIN_PERMISSION_ID,
  TEAM_MEMBER_PERMISSION_ID,
} from "./defaults.ts";
export type { ConfigOverride, JsonObject, JsonPrimitive, JsonValue } from "./json.ts";
export { CONFIG_KEY_SEGMENT_PATTERN, configKeyProblem, isValidConfigKey } from "./keys.ts";
export {
  type LegacyConfigUpdate,
  legacyConfigUpdateSchema,
  legacyConfigUpdateToOverride,
  parseLegacyConfigUpdate,
} from "./legacy-update.ts";
export {
  type ClientProjectConfig,
  type LegacyConfigView,
  type LegacyDomainView,
  type LegacyEmailConfigView,
  type LegacyOAuthProviderView,
  toClientProjectConfig,
  toLegacyConfigView,
} from "./legacy-view.ts";
export {
  applyOverride,
  mergeOverrideOverride,
  normalizeOverride,
  overrideToReach,
  removeKeys,
  validateOverrideShape,
} from "./override.ts";
export {
  CUSTOM_PERMISSION_ID_PATTERN,
  isSystemPermissionId,
  isValidCustomPermissionId,
  isValidPermissionId,
  PERMISSION_ID_PATTERN,
  SYSTEM_PERMISSION_IDS,
  SYSTEM_PERMISSIONS,
  type SystemPermissionId,
} from "./permissions.ts";
export {
  CONFIG_LEVELS,
  type ConfigLevel,
  type LevelOverrides,
  mergeLevelOverrides,
  type RenderResult,
  renderConfig,
  validateLevelOverride,
} from "./render.ts";
export {
  ACCOUNT_MERGE_STRATEGIES,
  type AccountMergeStrategy,
  CUSTOM_OIDC_PROVIDER_TYPE,
  defaultRenderedConfig,
  EMAIL_SERVER_PROVIDERS,
  type EmailServerConfig,
  type EmailTemplateConfig,
  type EmailThemeConfig,
  isOAuthProviderType,
  OAUTH_PROVIDER_CONFIG_TYPES,
  OAUTH_PROVIDER_TYPES,
  type OAuthProviderConfig,
  type OAuthProviderConfigType,
  type OAuthProviderType,
  type PaymentsConfig,
  PERMISSION_SCOPES,
  type PermissionDefinitionConfig,
  type PermissionScope,
  type RenderedConfig,
  renderedConfigSchema,
  SHARED_OAUTH_PROVIDER_TYPES,
  type TrustedDomainConfig,
} from "./schema.ts";
export { CONFIG_SECRET_PATHS, isSecretConfigPath, mapConfigSecrets } from "./secrets.ts";
