import type { OAuthProviderConfig, RenderedConfig } from "../../config/index.ts";

/** A provider entry of the project config, with its key (the "provider config id"). */
export type ProviderConfigEntry = { configId: string; provider: OAuthProviderConfig };

/**
 * The provider entry that `providerId` names: the entry with that key, else the first (by key) of that type, since
 * the SDK names providers by type (`/auth/oauth/authorize/google`).
 */
export function findProviderConfig(config: RenderedConfig, providerId: string): ProviderConfigEntry | null {
  const providers = config.auth.oauth.providers;
  if (Object.hasOwn(providers, providerId)) return { configId: providerId, provider: providers[providerId]! };
  const key = Object.keys(providers)
    .sort()
    .find((k) => providers[k]!.type === providerId);
  return key ? { configId: key, provider: providers[key]! } : null;
}
