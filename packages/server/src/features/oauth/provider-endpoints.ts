/**
 * Where a project's provider lives: the built-in addresses of its type, or what the project set instead
 * (`issuerUrl`, resolved through OpenID discovery, and `authorizationEndpoint`, `tokenEndpoint`,
 * `userInfoEndpoint`, which win over both). Every address a project supplies must be https (plain http only for
 * localhost in development), and is fetched through the SSRF guard in production (provider-fetch.ts).
 */
import { knownError } from "@gatehouse/shared";
import * as oauth from "oauth4webapi";
import type { OAuthProviderConfig } from "../../config/index.ts";
import type { ServerEnv } from "../../env.ts";
import { ownerProviderFetch, ownerUrlProblem } from "./provider-fetch.ts";

const DISCOVERY_TIMEOUT_MS = 5_000;
/** Issuers rarely move their endpoints; an hour keeps sign-ins from fetching the document every time. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;
const MAX_CACHED_ISSUERS = 500;

export type ProviderEndpoints = {
  /** The OpenID issuer whose ID tokens are accepted (and who may send `iss` back), or null. */
  issuer: string | null;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** The user API read with the user's access token; null: the profile comes from the verified ID token. */
  userInfoEndpoint: string | null;
  jwksUri: string | null;
  issParameterSupported: boolean;
  /** The profile is read as OpenID Connect claims rather than through the provider type's own user API. */
  openId: boolean;
  /** Some address came from the project (directly or from its issuer's document): fetched through the guard. */
  ownerSupplied: boolean;
  /** From the discovery document, when there is one. */
  tokenEndpointAuthMethods: readonly string[] | null;
};

/** A built-in provider type's own addresses. */
export type BuiltInEndpoints = Pick<
  ProviderEndpoints,
  "authorizationEndpoint" | "tokenEndpoint" | "userInfoEndpoint" | "issuer" | "jwksUri"
>;

/** A project's provider settings that cannot work: the provider is not usable, a 400 that says why. */
export function providerSetupError(message: string) {
  return knownError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED", undefined, message);
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

const discoveries = new Map<string, { expiresAt: number; metadata: Promise<oauth.AuthorizationServer> }>();

async function fetchDiscovery(env: ServerEnv, issuer: URL): Promise<oauth.AuthorizationServer> {
  let response: Response;
  try {
    response = await oauth.discoveryRequest(issuer, {
      algorithm: "oidc",
      [oauth.customFetch]: ownerProviderFetch(env),
      [oauth.allowInsecureRequests]: env.isDevelopment,
      signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
    });
  } catch (error) {
    throw providerSetupError(
      `The OpenID configuration of ${issuer.href} could not be fetched (${reasonOf(error)}).`,
    );
  }
  if (response.status !== 200) {
    throw providerSetupError(
      `The OpenID configuration of ${issuer.href} could not be fetched (HTTP ${response.status}).`,
    );
  }
  try {
    return await oauth.processDiscoveryResponse(issuer, response);
  } catch (error) {
    throw providerSetupError(
      `The OpenID configuration of ${issuer.href} is not usable (${reasonOf(error)}).`,
    );
  }
}

/**
 * The issuer's discovery document (`<issuer>/.well-known/openid-configuration`), its `issuer` checked against the
 * URL asked for. Cached per issuer for an hour; a failure is not cached, so a fixed issuer works at once.
 */
export function discoverIssuer(env: ServerEnv, issuerUrl: string): Promise<oauth.AuthorizationServer> {
  const problem = ownerUrlProblem(env, issuerUrl);
  if (problem) return Promise.reject(providerSetupError(`issuerUrl: ${problem}`));
  const issuer = new URL(issuerUrl);
  // Development and production fetch differently (the guard), so they do not share entries.
  const key = `${env.isDevelopment ? "dev" : "prod"} ${issuer.href}`;
  const now = Date.now();
  const cached = discoveries.get(key);
  if (cached && cached.expiresAt > now) return cached.metadata;
  const metadata = fetchDiscovery(env, issuer);
  discoveries.delete(key);
  discoveries.set(key, { expiresAt: now + DISCOVERY_TTL_MS, metadata });
  metadata.catch(() => {
    if (discoveries.get(key)?.metadata === metadata) discoveries.delete(key);
  });
  if (discoveries.size > MAX_CACHED_ISSUERS) discoveries.delete(discoveries.keys().next().value!);
  return metadata;
}

function checked(env: ServerEnv, what: string, url: string | undefined | null): string | null {
  if (url === undefined || url === null) return null;
  const problem = ownerUrlProblem(env, url);
  if (problem) throw providerSetupError(`${what}: ${problem}`);
  return url;
}

/** The addresses of a project's provider; `builtIn` is null for the generic OpenID Connect provider. */
export async function resolveEndpoints(
  env: ServerEnv,
  provider: OAuthProviderConfig,
  builtIn: BuiltInEndpoints | null,
): Promise<ProviderEndpoints> {
  let issuer = builtIn?.issuer ?? null;
  let authorizationEndpoint = builtIn?.authorizationEndpoint ?? null;
  let tokenEndpoint = builtIn?.tokenEndpoint ?? null;
  let userInfoEndpoint = builtIn?.userInfoEndpoint ?? null;
  let jwksUri = builtIn?.jwksUri ?? null;
  let issParameterSupported = false;
  let tokenEndpointAuthMethods: readonly string[] | null = null;
  let openId = builtIn === null;
  let ownerSupplied = builtIn === null;

  if (provider.issuerUrl) {
    const document = await discoverIssuer(env, provider.issuerUrl);
    const from = `The OpenID configuration of ${provider.issuerUrl}`;
    issuer = document.issuer;
    authorizationEndpoint = checked(env, `${from} (authorization_endpoint)`, document.authorization_endpoint);
    tokenEndpoint = checked(env, `${from} (token_endpoint)`, document.token_endpoint);
    userInfoEndpoint = checked(env, `${from} (userinfo_endpoint)`, document.userinfo_endpoint);
    jwksUri = checked(env, `${from} (jwks_uri)`, document.jwks_uri);
    if (!jwksUri) throw providerSetupError(`${from} names no jwks_uri, so its ID tokens cannot be verified.`);
    issParameterSupported = document.authorization_response_iss_parameter_supported === true;
    tokenEndpointAuthMethods = document.token_endpoint_auth_methods_supported ?? null;
    openId = true;
    ownerSupplied = true;
  }
  if (provider.authorizationEndpoint || provider.tokenEndpoint || provider.userInfoEndpoint)
    ownerSupplied = true;
  authorizationEndpoint =
    checked(env, "authorizationEndpoint", provider.authorizationEndpoint) ?? authorizationEndpoint;
  tokenEndpoint = checked(env, "tokenEndpoint", provider.tokenEndpoint) ?? tokenEndpoint;
  userInfoEndpoint = checked(env, "userInfoEndpoint", provider.userInfoEndpoint) ?? userInfoEndpoint;

  if (!authorizationEndpoint || !tokenEndpoint) {
    throw providerSetupError("The OAuth provider has no authorization endpoint or no token endpoint.");
  }
  if (!userInfoEndpoint && !(issuer && jwksUri)) {
    throw providerSetupError(
      "The OAuth provider has neither a userinfo endpoint nor ID tokens that can be verified.",
    );
  }
  return {
    issuer,
    authorizationEndpoint,
    tokenEndpoint,
    userInfoEndpoint,
    jwksUri,
    issParameterSupported,
    openId,
    ownerSupplied,
    tokenEndpointAuthMethods,
  };
}
