import { canonicalizeHostname, validateHostname } from "./hostname.ts";
import type { ParseResult, ValidationResult } from "./result.ts";
import { hasControlOrWhitespace, isAscii } from "./text.ts";
import { defaultPort, type HttpProtocol } from "./url.ts";

/** A trusted-domain base URL (`domains.trustedDomains.<id>.baseUrl`) after validation. */
export interface TrustedDomainBaseUrl {
  protocol: HttpProtocol;
  /**
   * Lowercase; internationalised names in punycode; IP addresses in the form the browser prints them (IPv6 in
   * brackets). May contain `*` wildcards (then `hasWildcard` is true).
   */
  hostname: string;
  /** Always explicit: 443 or 80 when the URL names no port. */
  port: number;
  hasWildcard: boolean;
  /** The same base URL written canonically, default port left out, e.g. `https://*.example.com`. */
  normalized: string;
}

const START_MESSAGE =
  "The URL must start with https:// (or http:// for local development), like https://example.com.";

/**
 * Validates and normalises a trusted-domain base URL such as `https://example.com`,
 * `https://app.example.com:8443`, `https://*.example.com` or `http://localhost:3000`.
 *
 * It must be http or https; have a hostname (wildcards allowed, see `validateHostname`) or an IP address, and
 * optionally a port 1-65535; and nothing else: no credentials, no path other than `/`, no query, no fragment
 * (the handler path is configured separately). Whitespace and backslashes are refused rather than trimmed.
 *
 * The URL is split by hand rather than handed to `new URL()` first, because the WHATWG parser quietly repairs
 * input (`https:example.com`, `https:\\example.com`, stray tabs) and we want the owner to see what they typed
 * is wrong instead of trusting something they did not mean.
 */
export function parseTrustedDomainBaseUrl(baseUrl: string): ParseResult<TrustedDomainBaseUrl> {
  if (typeof baseUrl !== "string" || baseUrl.length === 0) {
    return fail("Enter a URL, like https://example.com.");
  }
  if (hasControlOrWhitespace(baseUrl)) return fail("The URL must not contain spaces or control characters.");
  if (baseUrl.includes("\\")) return fail("The URL must not contain backslashes.");

  const schemeMatch = /^(https?):\/\//i.exec(baseUrl);
  if (schemeMatch === null) return fail(START_MESSAGE);
  const protocol = schemeMatch[1]!.toLowerCase() as HttpProtocol;
  const afterScheme = baseUrl.slice(schemeMatch[0].length);

  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const rest = authorityEnd === -1 ? "" : afterScheme.slice(authorityEnd);

  const pathEnd = rest.search(/[?#]/);
  const path = pathEnd === -1 ? rest : rest.slice(0, pathEnd);
  if (path !== "" && path !== "/") {
    return fail("The URL must not contain a path; enter only the address, like https://example.com.");
  }
  if (rest.includes("?")) return fail("The URL must not contain a query (?…).");
  if (rest.includes("#")) return fail("The URL must not contain a fragment (#…).");

  if (authority.includes("@")) return fail("The URL must not contain a username or password.");
  if (authority.length === 0) return fail("The URL has no hostname.");

  // Split host and port. Only an IPv6 literal, which is bracketed, may contain colons.
  let rawHost: string;
  let rawPort: string | null = null;
  if (authority.startsWith("[")) {
    const close = authority.indexOf("]");
    if (close === -1) return fail("The IPv6 address is missing its closing bracket.");
    rawHost = authority.slice(0, close + 1);
    const afterHost = authority.slice(close + 1);
    if (afterHost !== "") {
      if (!afterHost.startsWith(":")) return fail("Unexpected characters after the IPv6 address.");
      rawPort = afterHost.slice(1);
    }
  } else {
    const colon = authority.indexOf(":");
    rawHost = colon === -1 ? authority : authority.slice(0, colon);
    rawPort = colon === -1 ? null : authority.slice(colon + 1);
  }

  let port = defaultPort(protocol);
  if (rawPort !== null) {
    // At most five digits keeps Number() exact; leading zeros are harmless (the browser drops them too).
    if (!/^[0-9]{1,5}$/.test(rawPort) || Number(rawPort) < 1 || Number(rawPort) > 65535) {
      return fail("The port must be a number from 1 to 65535.");
    }
    port = Number(rawPort);
  }

  const host = normalizeHost(rawHost);
  if (!host.ok) return host;
  const hostname = host.value;
  const hasWildcard = hostname.includes("*");

  const portSuffix = port === defaultPort(protocol) ? "" : `:${port}`;
  return {
    ok: true,
    value: { protocol, hostname, port, hasWildcard, normalized: `${protocol}://${hostname}${portSuffix}` },
  };
}

/** `parseTrustedDomainBaseUrl` without the parsed value, for form and config validation. */
export function validateTrustedDomainBaseUrl(baseUrl: string): ValidationResult {
  const result = parseTrustedDomainBaseUrl(baseUrl);
  return result.ok ? { ok: true } : result;
}

function normalizeHost(rawHost: string): ParseResult<string> {
  if (rawHost.startsWith("[")) {
    const canonical = canonicalizeHostname(rawHost);
    if (canonical === null || !canonical.startsWith("[")) return fail("The IPv6 address is not valid.");
    return { ok: true, value: canonical };
  }

  if (rawHost.includes("*")) {
    // Patterns are checked and lowercased by hand: they are not hostnames, so the URL parser cannot be asked
    // about them, and all-ASCII letters, digits and hyphens need no further normalisation.
    if (!isAscii(rawHost)) {
      return fail(
        "Wildcard domains must be written in ASCII; write internationalised names in their punycode (xn--) form.",
      );
    }
    const checked = validateHostname(rawHost, { allowWildcards: true });
    return checked.ok ? { ok: true, value: rawHost.toLowerCase() } : checked;
  }

  // Check what the owner typed first, so the message is about their spelling. Non-ASCII names are checked
  // after conversion to punycode instead.
  if (isAscii(rawHost)) {
    const checked = validateHostname(rawHost);
    if (!checked.ok) return checked;
  }
  // Then read the host as a browser would: lowercase, punycode, and IPv4 shorthands such as 0x7f.1 become
  // 127.0.0.1, so that the production-mode checks see the address that will really be used.
  const canonical = canonicalizeHostname(rawHost);
  if (canonical === null) return fail("The hostname is not valid.");
  const checked = validateHostname(canonical);
  return checked.ok ? { ok: true, value: canonical } : checked;
}

function fail(message: string): { ok: false; message: string } {
  return { ok: false, message };
}
