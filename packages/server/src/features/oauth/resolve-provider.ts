/**
 * Which credentials and addresses a project's provider uses: the project's own OAuth app ("standard"), the server
 * operator's ("shared"), or, in development, the built-in development provider or the operator's development issuer
 * (dev-issuer.ts); at the built-in addresses of the provider's type or at the project's (provider-endpoints.ts); a
 * generic OpenID Connect provider at its issuer's. client.ts makes the calls with what this returns.
 */
import { knownError } from "@gatehouse/shared";
import * as oauth from "oauth4webapi";
import { CUSTOM_OIDC_PROVIDER_TYPE, type OAuthProviderConfigType } from "../../config/index.ts";
import type { ServerEnv } from "../../env.ts";
import { appleClientSecret } from "./apple-client-secret.ts";
import {
  DEV_ISSUER_CLIENT_SECRET,
  DEV_ISSUER_SCOPES,
  devIssuerProfile,
  discoverDevIssuer,
} from "./dev-issuer.ts";
import { DEV_PROVIDER_DEFAULT_SCOPES, devOAuthEnabled, getDevOAuthProvider } from "./dev-provider.ts";
import type { ProviderConfigEntry } from "./provider-config.ts";
import { type BuiltInEndpoints, type ProviderEndpoints, resolveEndpoints } from "./provider-endpoints.ts";
import { type Fetcher, ownerProviderFetch, platformFetch } from "./provider-fetch.ts";
import {
  APPLE_ISSUER,
  OPENID_SCOPES,
  openIdProfile,
  PROVIDERS,
  type ProviderDefinition,
  type ProviderOptions,
  profileFromOidcClaims,
} from "./providers.ts";

/** In development, a standard provider whose client id is this talks to the dev provider (the reference's convention). */
const MOCK_CLIENT_ID = "MOCK";

export type ResolvedProvider = {
  configId: string;
  type: OAuthProviderConfigType;
  clientId: string;
  scopes: readonly string[];
  authorizationEndpoint: string;
  authorizationParams: Record<string, string>;
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  definition: Pick<ProviderDefinition, "fetchProfile" | "normalizeTokenResponse">;
  /** The user API the profile is read from, when there is one. */
  userInfoEndpoint: string | null;
  /** The sign-in's ID token is verified against these and its claims used; null: ID tokens are ignored. */
  idTokens: { issuer: string; jwksUri: string } | null;
  /** How requests reach the provider: through the SSRF guard when a project chose the addresses. */
  fetch: Fetcher;
  allowInsecureRequests: boolean;
  /** The development provider, where anyone signs in as any address; see `providerEmailTrust`. */
  isDevelopmentProvider: boolean;
};

function notAvailable(message: string) {
  return knownError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED", undefined, message);
}

async function developmentProvider(
  type: OAuthProviderConfigType,
  configId: string,
  callbackUrl: string,
): Promise<ResolvedProvider> {
  const dev = await getDevOAuthProvider();
  const { clientId, clientSecret } = dev.registerClient(type, callbackUrl);
  return {
    configId,
    type,
    clientId,
    scopes: DEV_PROVIDER_DEFAULT_SCOPES,
    authorizationEndpoint: `${dev.issuer}/auth`,
    // Always ask for the login page, so that a developer can switch between test accounts.
    authorizationParams: { prompt: "login consent" },
    as: {
      issuer: dev.issuer,
      authorization_endpoint: `${dev.issuer}/auth`,
      token_endpoint: `${dev.issuer}/token`,
      userinfo_endpoint: `${dev.issuer}/me`,
      authorization_response_iss_parameter_supported: true,
    },
    client: { client_id: clientId },
    clientAuth: oauth.ClientSecretPost(clientSecret),
    definition: {
      fetchProfile: async (api) =>
        profileFromOidcClaims(await api.getJson(`${dev.issuer}/me`), "The development OAuth provider"),
    },
    userInfoEndpoint: `${dev.issuer}/me`,
    idTokens: null,
    fetch: platformFetch,
    allowInsecureRequests: true,
    isDevelopmentProvider: true,
  };
}

/** A shared provider at the operator's development issuer (dev-issuer.ts says how the reference does it). */
async function devIssuerProvider(
  issuerUrl: string,
  type: OAuthProviderConfigType,
  configId: string,
): Promise<ResolvedProvider> {
  const as = await discoverDevIssuer(issuerUrl);
  // Mock servers register clients with OpenID's default, client_secret_basic; the post form where that is all.
  const methods = as.token_endpoint_auth_methods_supported;
  const basic = !methods || methods.includes("client_secret_basic");
  return {
    configId,
    type,
    clientId: type,
    scopes: DEV_ISSUER_SCOPES,
    authorizationEndpoint: as.authorization_endpoint,
    authorizationParams: {},
    as,
    client: { client_id: type },
    clientAuth: basic
      ? oauth.ClientSecretBasic(DEV_ISSUER_CLIENT_SECRET)
      : oauth.ClientSecretPost(DEV_ISSUER_CLIENT_SECRET),
    definition: { fetchProfile: async (api) => devIssuerProfile(await api.getJson(as.userinfo_endpoint)) },
    userInfoEndpoint: as.userinfo_endpoint,
    idTokens: null,
    fetch: platformFetch,
    allowInsecureRequests: true,
    // Its addresses are believed (verified), unlike the built-in stand-in's: see dev-issuer.ts.
    isDevelopmentProvider: false,
  };
}

/**
 * How the generic provider authenticates at the token endpoint: client_secret_post where the issuer lists it (or
 * lists nothing: nearly every server takes it), else client_secret_basic.
 */
function genericClientAuthentication(
  endpoints: ProviderEndpoints,
): "client_secret_post" | "client_secret_basic" {
  const methods = endpoints.tokenEndpointAuthMethods;
  if (!methods || methods.includes("client_secret_post") || !methods.includes("client_secret_basic")) {
    return "client_secret_post";
  }
  return "client_secret_basic";
}

const scopeList = (text: string) => text.split(/\s+/).filter(Boolean);

/** Credentials and endpoints for a provider entry. `callbackUrl` is registered with the dev provider if used. */
export async function resolveProvider(
  env: ServerEnv,
  entry: ProviderConfigEntry,
  callbackUrl: string,
): Promise<ResolvedProvider> {
  const { configId, provider } = entry;
  const definition = provider.type === CUSTOM_OIDC_PROVIDER_TYPE ? null : PROVIDERS[provider.type];
  const shared = provider.isShared && definition ? env.sharedOAuthCredentials?.[provider.type] : undefined;
  const useDev =
    definition !== null &&
    (provider.isShared
      ? !shared && devOAuthEnabled(env)
      : devOAuthEnabled(env) && provider.clientId === MOCK_CLIENT_ID);
  if (useDev) {
    return env.devOAuthIssuerUrl
      ? devIssuerProvider(env.devOAuthIssuerUrl, provider.type, configId)
      : developmentProvider(provider.type, configId, callbackUrl);
  }

  const appleKey =
    provider.appleTeamId && provider.appleKeyId && provider.applePrivateKey
      ? { teamId: provider.appleTeamId, keyId: provider.appleKeyId, privateKey: provider.applePrivateKey }
      : null;
  const clientId = provider.isShared ? shared?.clientId : provider.clientId;
  const staticSecret = provider.isShared ? shared?.clientSecret : provider.clientSecret;
  if (!clientId || (!staticSecret && !appleKey)) {
    throw notAvailable(
      provider.isShared
        ? `The OAuth provider ${provider.type} uses shared keys, but this server has none for it. Configure the project's own OAuth keys.`
        : `The OAuth provider ${configId} has no client id or client secret configured.`,
    );
  }

  const options: ProviderOptions = {
    clientId,
    microsoftTenantId: provider.microsoftTenantId,
    facebookConfigId: provider.facebookConfigId,
  };
  const builtIn: BuiltInEndpoints | null = definition && {
    authorizationEndpoint: definition.authorizationEndpoint(options),
    tokenEndpoint: definition.tokenEndpoint(options),
    userInfoEndpoint: definition.userInfoEndpoint?.(options) ?? null,
    issuer: definition.idTokens?.issuer ?? null,
    jwksUri: definition.idTokens?.jwksUri ?? null,
  };
  const endpoints = await resolveEndpoints(env, provider, builtIn);

  const clientSecret = appleKey
    ? await appleClientSecret(appleKey, { clientId, audience: endpoints.issuer ?? APPLE_ISSUER })
    : staticSecret!;
  const authentication = definition?.clientAuthentication ?? genericClientAuthentication(endpoints);
  const scopes = !definition
    ? [...new Set(["openid", ...scopeList(provider.scope ?? OPENID_SCOPES.join(" "))])]
    : // A provider given an issuer is read as OpenID Connect, which needs these scopes; one that already signs in
      // with ID tokens (Apple) asks for its own.
      endpoints.openId && !definition.idTokens
      ? [...new Set([...definition.defaultScopes, ...OPENID_SCOPES])]
      : definition.defaultScopes;

  return {
    configId,
    type: provider.type,
    clientId,
    scopes,
    authorizationEndpoint: endpoints.authorizationEndpoint,
    authorizationParams: definition?.authorizationParams?.(options) ?? {},
    as: {
      // Without an OpenID issuer the issuer is only a label (see `exchangeCode`).
      issuer: endpoints.issuer ?? new URL(endpoints.tokenEndpoint).origin,
      authorization_endpoint: endpoints.authorizationEndpoint,
      token_endpoint: endpoints.tokenEndpoint,
      ...(endpoints.userInfoEndpoint ? { userinfo_endpoint: endpoints.userInfoEndpoint } : {}),
      authorization_response_iss_parameter_supported: endpoints.issParameterSupported,
    },
    client: { client_id: clientId },
    clientAuth:
      authentication === "client_secret_basic"
        ? oauth.ClientSecretBasic(clientSecret)
        : oauth.ClientSecretPost(clientSecret),
    definition: {
      fetchProfile: endpoints.openId || !definition ? openIdProfile : definition.fetchProfile,
      normalizeTokenResponse: definition?.normalizeTokenResponse,
    },
    userInfoEndpoint: endpoints.userInfoEndpoint,
    idTokens:
      endpoints.issuer && endpoints.jwksUri ? { issuer: endpoints.issuer, jwksUri: endpoints.jwksUri } : null,
    fetch: endpoints.ownerSupplied ? ownerProviderFetch(env) : platformFetch,
    // Only reachable in development, for loopback addresses (ownerUrlProblem).
    allowInsecureRequests: endpoints.ownerSupplied && env.isDevelopment,
    isDevelopmentProvider: false,
  };
}
