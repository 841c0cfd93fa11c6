import { parseTrustedDomainBaseUrl } from "./base-url.ts";
import { isLocalhost } from "./localhost.ts";
import { urlMatchesBase } from "./match.ts";
import { hasControlOrWhitespace } from "./text.ts";
import { parseStrictHttpUrl } from "./url.ts";

export interface RedirectTrustConfig {
  /** `domains.allowLocalhost`: any localhost URL (see `isLocalhost`), any port, http or https, is trusted. */
  allowLocalhost: boolean;
  /** The `baseUrl` of every `domains.trustedDomains` entry. Invalid entries trust nothing. */
  trustedDomains: readonly string[];
}

export interface RedirectTrustOptions {
  /**
   * Where relative URLs (`/after-sign-in`) are resolved. Without it, relative URLs are not trusted, because
   * we cannot know which site they would land on.
   */
  baseUrlForRelative?: string | URL;
}

/**
 * May we send the user to `url` (a callback URL, `redirect_uri`, after-sign-in URL, ...)? Never throws; any
 * malformed or unexpected input gives false.
 *
 * - A relative URL must start with exactly one `/` (not `//` or `/\`, which browsers read as "another host")
 *   and is trusted only when `baseUrlForRelative` is given; it must then stay on that origin.
 * - An absolute URL must be plain `http://` or `https://` with no userinfo, backslashes or whitespace (see
 *   `parseStrictHttpUrl`). So `javascript:`, `data:`, `//evil.com` and `https://trusted.com@evil.com` are
 *   refused.
 * - A localhost URL is trusted when `allowLocalhost` is on.
 * - Otherwise it must match one of the trusted domains (see `matchesTrustedDomain`).
 */
export function isRedirectUrlTrusted(
  url: string | URL,
  config: RedirectTrustConfig,
  options: RedirectTrustOptions = {},
): boolean {
  try {
    return check(url, config, options);
  } catch {
    // Belt and braces: the checks are written not to throw, but a redirect check must fail closed whatever
    // odd value (a proxy, a getter that throws) it is handed.
    return false;
  }
}

function check(url: string | URL, config: RedirectTrustConfig, options: RedirectTrustOptions): boolean {
  if (typeof url === "string" && url.startsWith("/")) {
    return isTrustedRelative(url, options?.baseUrlForRelative);
  }

  const target = parseStrictHttpUrl(url);
  if (target === null) return false;

  if (config?.allowLocalhost === true && isLocalhost(target.hostname)) return true;

  const trustedDomains = Array.isArray(config?.trustedDomains) ? config.trustedDomains : [];
  return trustedDomains.some((baseUrl) => {
    const base = parseTrustedDomainBaseUrl(baseUrl);
    return base.ok && urlMatchesBase(target, base.value);
  });
}

function isTrustedRelative(path: string, baseUrlForRelative: string | URL | undefined): boolean {
  // "//host" and "/\host" are protocol-relative: browsers go to another host.
  if (path.startsWith("//") || path.startsWith("/\\")) return false;
  // Backslashes and whitespace could turn into "//" once a browser has cleaned them up ("/\t/evil.com").
  if (path.includes("\\") || hasControlOrWhitespace(path)) return false;
  if (baseUrlForRelative === undefined) return false;

  const base = parseStrictHttpUrl(baseUrlForRelative);
  if (base === null) return false;
  let resolved: URL;
  try {
    resolved = new URL(path, base);
  } catch {
    return false;
  }
  // Defensive: after the checks above a path cannot leave the base's origin.
  return resolved.origin === base.origin;
}
