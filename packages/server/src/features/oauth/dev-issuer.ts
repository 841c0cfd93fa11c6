/**
 * Shared providers at a development OpenID issuer the operator names (`GATEHOUSE_DEV_OAUTH_ISSUER_URL`, or the
 * reference's `STACK_OAUTH_MOCK_URL`), as the reference talks to its mock server (PROTOCOL.md §4.7): discovered from
 * the issuer, client id = the provider's type (`github`, `google`, …), client secret `MOCK-SERVER-SECRET`, scope
 * `openid offline_access`, and the userinfo `sub` (what was typed at the issuer) as both the account id and a
 * verified email. Any OpenID server registered that way will do, so teams drive OAuth sign-in in their own CI.
 * Development only (env.ts refuses the setting in production): unlike the built-in stand-in, whose addresses are
 * never believed, this issuer's are, since making test users with verified addresses is its point.
 */
import * as oauth from "oauth4webapi";
import { providerSetupError } from "./provider-endpoints.ts";
import { type ProviderProfile, ProviderProfileError } from "./providers.ts";

export const DEV_ISSUER_CLIENT_SECRET = "MOCK-SERVER-SECRET";
export const DEV_ISSUER_SCOPES = ["openid", "offline_access"] as const;

const DISCOVERY_TIMEOUT_MS = 5_000;
/**
 * The issuer's discovery document, with the endpoints a sign-in needs. The issuer is one the operator runs next to
 * the server, and may restart: its document is read each time.
 */
export async function discoverDevIssuer(issuerUrl: string): Promise<
  oauth.AuthorizationServer & {
    authorization_endpoint: string;
    token_endpoint: string;
    userinfo_endpoint: string;
  }
> {
  const issuer = new URL(issuerUrl);
  const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));
  let response: Response;
  try {
    response = await oauth.discoveryRequest(issuer, {
      algorithm: "oidc",
      [oauth.allowInsecureRequests]: true,
      signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
    });
  } catch (error) {
    throw providerSetupError(
      `The development OpenID issuer ${issuerUrl} (GATEHOUSE_DEV_OAUTH_ISSUER_URL) could not be reached (${reason(error)}).`,
    );
  }
  let as: oauth.AuthorizationServer;
  try {
    as = await oauth.processDiscoveryResponse(issuer, response);
  } catch (error) {
    throw providerSetupError(
      `The development OpenID issuer ${issuerUrl} (GATEHOUSE_DEV_OAUTH_ISSUER_URL) has no usable OpenID configuration (${reason(error)}).`,
    );
  }
  const { authorization_endpoint, token_endpoint, userinfo_endpoint } = as;
  if (!authorization_endpoint || !token_endpoint || !userinfo_endpoint) {
    throw providerSetupError(
      `The development OpenID issuer ${issuerUrl} names no authorization, token or userinfo endpoint.`,
    );
  }
  return { ...as, authorization_endpoint, token_endpoint, userinfo_endpoint };
}

/** The userinfo's `sub` is the account and its verified address, as the reference reads its mock server. */
export function devIssuerProfile(claims: unknown): ProviderProfile {
  const sub = (claims as { sub?: unknown } | null)?.sub;
  if (typeof sub !== "string" || sub === "") {
    throw new ProviderProfileError("The development OpenID issuer's userinfo has no sub.");
  }
  return { accountId: sub, email: sub, emailVerified: true, displayName: null, profileImageUrl: null };
}
