import { isRedirectUrlTrusted, knownError } from "@gatehouse/shared";
import type { RenderedConfig } from "./schema.ts";

/**
 * A callback URL is put in an email with a code (PROTOCOL.md §4.3), so it must be on the project's trusted domains:
 * otherwise a stranger could make us mail a victim a working code that points at the stranger's site. Check it
 * before a code exists.
 */
/** True when the project trusts `url` as a redirect or emailed-link target (localhost rule, trusted domains). */
export function isUrlTrustedByProject(config: RenderedConfig, url: string): boolean {
  return isRedirectUrlTrusted(url, {
    allowLocalhost: config.domains.allowLocalhost,
    trustedDomains: Object.values(config.domains.trustedDomains).map((domain) => domain.baseUrl),
  });
}

export function assertTrustedCallbackUrl(config: RenderedConfig, callbackUrl: string): void {
  if (!isUrlTrustedByProject(config, callbackUrl)) throw knownError("REDIRECT_URL_NOT_WHITELISTED");
}

/** Sets `code` in the query, keeping any other parameters and the fragment where they belong. */
export function withCode(callbackUrl: string, code: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set("code", code);
  return url.toString();
}
