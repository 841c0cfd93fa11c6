/**
 * Gatehouse as an OAuth client of a provider (resolve-provider.ts says which credentials and addresses): the calls
 * made through oauth4webapi: the authorization URL, the code exchange with PKCE, the user's profile (with the
 * sign-in's ID token verified against the issuer's keys where there is one), and token refresh.
 */
import * as oauth from "oauth4webapi";
import { IdTokenError, verifyIdToken } from "./id-token.ts";
import { type ProviderProfile, ProviderProfileError } from "./providers.ts";
import type { ResolvedProvider } from "./resolve-provider.ts";

export { type ResolvedProvider, resolveProvider } from "./resolve-provider.ts";

const PROVIDER_TIMEOUT_MS = 15_000;

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
  // A token that does not verify is the provider's answer being refused, not the provider being down.
  if (error instanceof IdTokenError) {
    return new ProviderCallError(error.kind === "invalid" ? "rejected" : "unavailable", error.message);
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new ProviderCallError(
    "unavailable",
    `The OAuth provider could not be reached for ${what} (${reason}).`,
  );
}

/**
 * Transport options for oauth4webapi. Token responses are made regular before oauth4webapi reads them: an error
 * answered with 200 (GitHub does that) becomes a 400, provider quirks are straightened, and the ID token is taken
 * out and kept aside: oauth4webapi would only check its claims, while `exchangeCode` verifies it against the
 * issuer's keys where the provider has them, and ignores it where the profile comes from a user API.
 */
function transport(provider: ResolvedProvider, idToken: { value: string | null }) {
  const customFetch = async (url: string, init: oauth.CustomFetchOptions<string, unknown>) => {
    const response = await provider.fetch(url, init as RequestInit);
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
    const idTokenClaims =
      provider.idTokens && idToken.value
        ? await verifyIdToken({
            idToken: idToken.value,
            issuer: provider.idTokens.issuer,
            audience: provider.clientId,
            jwksUri: provider.idTokens.jwksUri,
            fetcher: provider.fetch,
          })
        : null;
    const profile = await provider.definition.fetchProfile(
      { getJson: (url, headers) => getJson(provider, tokens.accessToken, url, headers) },
      { idTokenClaims, clientId: provider.clientId, userInfoEndpoint: provider.userInfoEndpoint },
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
