/**
 * Gatehouse as an OAuth client of a provider: which credentials and endpoints a project's provider uses ("standard"
 * project keys, "shared" server-operator keys, or the development provider), and the calls made with them through
 * oauth4webapi: the authorization URL, the code exchange with PKCE, the user's profile, and token refresh.
 */
import { knownError } from "@gatehouse/shared";
import * as oauth from "oauth4webapi";
import type { OAuthProviderType } from "../../config/index.ts";
import type { ServerEnv } from "../../env.ts";
import { DEV_PROVIDER_DEFAULT_SCOPES, devOAuthEnabled, getDevOAuthProvider } from "./dev-provider.ts";
import type { ProviderConfigEntry } from "./provider-config.ts";
import {
  PROVIDERS,
  type ProviderDefinition,
  type ProviderProfile,
  ProviderProfileError,
  profileFromOidcClaims,
} from "./providers.ts";

/** In development, a standard provider whose client id is this talks to the dev provider (the reference's convention). */
const MOCK_CLIENT_ID = "MOCK";
const PROVIDER_TIMEOUT_MS = 15_000;

export type ResolvedProvider = {
  configId: string;
  type: OAuthProviderType;
  clientId: string;
  scopes: readonly string[];
  authorizationEndpoint: string;
  authorizationParams: Record<string, string>;
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  definition: Pick<ProviderDefinition, "fetchProfile" | "normalizeTokenResponse">;
  allowInsecureRequests: boolean;
  /** The development provider, where anyone signs in as any address; see `providerEmailTrust`. */
  isDevelopmentProvider: boolean;
};

function notAvailable(message: string) {
  return knownError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED", undefined, message);
}

/** Credentials and endpoints for a provider entry. `callbackUrl` is registered with the dev provider if used. */
export async function resolveProvider(
  env: ServerEnv,
  entry: ProviderConfigEntry,
  callbackUrl: string,
): Promise<ResolvedProvider> {
  const { configId, provider } = entry;
  const definition = PROVIDERS[provider.type];
  const shared = provider.isShared ? env.sharedOAuthCredentials?.[provider.type] : undefined;
  const credentials = provider.isShared
    ? shared
    : provider.clientId && provider.clientSecret
      ? { clientId: provider.clientId, clientSecret: provider.clientSecret }
      : undefined;
  const useDev = provider.isShared
    ? !shared && devOAuthEnabled(env)
    : devOAuthEnabled(env) && provider.clientId === MOCK_CLIENT_ID;

  if (useDev) {
    const dev = await getDevOAuthProvider();
    const { clientId, clientSecret } = dev.registerClient(provider.type, callbackUrl);
    return {
      configId,
      type: provider.type,
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
      allowInsecureRequests: true,
      isDevelopmentProvider: true,
    };
  }
  if (!credentials) {
    throw notAvailable(
      provider.isShared
        ? `The OAuth provider ${provider.type} uses shared keys, but this server has none for it. Configure the project's own OAuth keys.`
        : `The OAuth provider ${configId} has no client id or client secret configured.`,
    );
  }
  const options = {
    clientId: credentials.clientId,
    microsoftTenantId: provider.microsoftTenantId,
    facebookConfigId: provider.facebookConfigId,
  };
  const tokenEndpoint = definition.tokenEndpoint(options);
  return {
    configId,
    type: provider.type,
    clientId: credentials.clientId,
    scopes: definition.defaultScopes,
    authorizationEndpoint: definition.authorizationEndpoint(options),
    authorizationParams: definition.authorizationParams?.(options) ?? {},
    // These providers publish no metadata we rely on; the issuer is only a label here (see `exchangeCode`).
    as: { issuer: new URL(tokenEndpoint).origin, token_endpoint: tokenEndpoint },
    client: { client_id: credentials.clientId },
    clientAuth:
      definition.clientAuthentication === "client_secret_basic"
        ? oauth.ClientSecretBasic(credentials.clientSecret)
        : oauth.ClientSecretPost(credentials.clientSecret),
    definition,
    allowInsecureRequests: false,
    isDevelopmentProvider: false,
  };
}

/** The provider's authorization URL for an inner state and PKCE challenge. */
export function authorizationUrl(
  provider: ResolvedProvider,
  input: { callbackUrl: string; state: string; codeChallenge: string; extraScopes: readonly string[] },
): string {
  const url = new URL(provider.authorizationEndpoint);
  const scopes = [...new Set([...provider.scopes, ...input.extraScopes])];
  const params: Record<string, string> = {
    client_id: provider.clientId,
    redirect_uri: input.callbackUrl,
    response_type: "code",
    scope: scopes.join(" "),
    state: input.state,
    code_challenge: input.codeChallenge,
    code_challenge_method: "S256",
    ...provider.authorizationParams,
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

/** Why a call to the provider failed: it said no (`rejected`), or it could not be used (`unavailable`). */
export class ProviderCallError extends Error {
  override readonly name = "ProviderCallError";
  constructor(
    readonly kind: "rejected" | "unavailable",
    message: string,
  ) {
    super(message);
  }
}

function toProviderCallError(error: unknown, what: string): ProviderCallError {
  if (error instanceof ProviderCallError) return error;
  if (error instanceof oauth.ResponseBodyError) {
    const detail = error.error_description ? `${error.error}: ${error.error_description}` : error.error;
    return new ProviderCallError("rejected", `The OAuth provider refused ${what} (${detail}).`);
  }
  if (error instanceof ProviderProfileError) return new ProviderCallError("unavailable", error.message);
  const reason = error instanceof Error ? error.message : String(error);
  return new ProviderCallError(
    "unavailable",
    `The OAuth provider could not be reached for ${what} (${reason}).`,
  );
}

/**
 * Transport options for oauth4webapi. Token responses are made regular before oauth4webapi reads them: an error
 * answered with 200 (GitHub does that) becomes a 400, provider quirks are straightened, and the ID token is taken
 * out, because identity comes from the provider's user API (the ID token is kept aside for Apple, which has none).
 */
function transport(provider: ResolvedProvider, idToken: { value: string | null }) {
  const customFetch = async (url: string, init: oauth.CustomFetchOptions<string, unknown>) => {
    const response = await fetch(url, init as RequestInit);
    if (url !== provider.as.token_endpoint) return response;
    const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      return new Response("not JSON", { status: 502, headers: { "content-type": "text/plain" } });
    }
    let json = provider.definition.normalizeTokenResponse?.(body) ?? body;
    if (typeof json.id_token === "string") idToken.value = json.id_token;
    const { id_token: _dropped, ...rest } = json;
    json = rest;
    const status = response.status === 200 && typeof json.error === "string" ? 400 : response.status;
    return new Response(JSON.stringify(json), {
      status,
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    });
  };
  return {
    [oauth.customFetch]: customFetch,
    [oauth.allowInsecureRequests]: provider.allowInsecureRequests,
    signal: () => AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
  };
}

export type ProviderTokens = {
  accessToken: string;
  refreshToken: string | null;
  /** Granted scopes, when the provider says (else those requested). */
  scopes: string[];
  expiresAt: Date | null;
};

function tokensOf(response: oauth.TokenEndpointResponse, requestedScopes: readonly string[]): ProviderTokens {
  const scope = typeof response.scope === "string" ? response.scope : null;
  return {
    accessToken: response.access_token,
    refreshToken: typeof response.refresh_token === "string" ? response.refresh_token : null,
    scopes: scope ? scope.split(/[\s,]+/).filter(Boolean) : [...requestedScopes],
    expiresAt:
      typeof response.expires_in === "number" ? new Date(Date.now() + response.expires_in * 1000) : null,
  };
}

/**
 * Exchanges the provider's authorization code (with our PKCE verifier) and reads the user's profile. `callback` is
 * the provider's redirect to us; its state was already matched to a stored flow by the caller.
 */
export async function exchangeCode(
  provider: ResolvedProvider,
  input: {
    callback: URLSearchParams;
    state: string;
    callbackUrl: string;
    codeVerifier: string;
    scopes: string[];
  },
): Promise<{ tokens: ProviderTokens; profile: ProviderProfile }> {
  const idToken = { value: null as string | null };
  const http = transport(provider, idToken);
  const callback = new URLSearchParams(input.callback);
  // Each provider has its own redirect URI here, which is what defends against mix-up attacks; `iss` is only
  // checked where the provider is known to send it (the dev provider), as other issuers are not configured.
  if (!provider.as.authorization_response_iss_parameter_supported) callback.delete("iss");
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(provider.as, provider.client, callback, input.state);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProviderCallError("rejected", `The OAuth provider's answer is not valid (${reason}).`);
  }
  try {
    const response = await oauth.authorizationCodeGrantRequest(
      provider.as,
      provider.client,
      provider.clientAuth,
      params,
      input.callbackUrl,
      input.codeVerifier,
      http,
    );
    const result = await oauth.processAuthorizationCodeResponse(provider.as, provider.client, response);
    const tokens = tokensOf(result, input.scopes);
    const profile = await provider.definition.fetchProfile(
      { getJson: (url, headers) => getJson(provider, tokens.accessToken, url, headers) },
      { idToken: idToken.value, clientId: provider.clientId },
    );
    return { tokens, profile };
  } catch (error) {
    throw toProviderCallError(error, "the sign-in");
  }
}

async function getJson(
  provider: ResolvedProvider,
  accessToken: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const response = await oauth.protectedResourceRequest(
    accessToken,
    "GET",
    new URL(url),
    new Headers({ accept: "application/json", ...headers }),
    null,
    transport(provider, { value: null }),
  );
  if (!response.ok) {
    throw new ProviderCallError("unavailable", `The OAuth provider's user API answered ${response.status}.`);
  }
  return response.json();
}

/** A new access token from a refresh token (connected accounts). */
export async function refreshTokens(
  provider: ResolvedProvider,
  refreshToken: string,
  previousScopes: string[],
): Promise<ProviderTokens> {
  const http = transport(provider, { value: null });
  try {
    const response = await oauth.refreshTokenGrantRequest(
      provider.as,
      provider.client,
      provider.clientAuth,
      refreshToken,
      http,
    );
    const result = await oauth.processRefreshTokenResponse(provider.as, provider.client, response);
    const tokens = tokensOf(result, previousScopes);
    // Most providers keep the refresh token when they do not send a new one.
    return { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken };
  } catch (error) {
    throw toProviderCallError(error, "the token refresh");
  }
}
