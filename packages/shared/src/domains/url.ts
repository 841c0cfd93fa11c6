import { hasControlOrWhitespace } from "./text.ts";

export type HttpProtocol = "http" | "https";

/** The port a browser uses when the URL names none. */
export function defaultPort(protocol: HttpProtocol): number {
  return protocol === "https" ? 443 : 80;
}

/** The port an http(s) URL connects to, with the default made explicit (`https://a.com` -> 443). */
export function effectivePort(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return defaultPort(url.protocol === "https:" ? "https" : "http");
}

/**
 * Parses an absolute http(s) URL, refusing every spelling that browsers or other URL parsers might read
 * differently from us. Returns null instead of throwing.
 *
 * Refused, and why:
 * - anything but `http://` or `https://` followed by a host (`javascript:`, `data:`, `//evil.com`,
 *   `https:evil.com`, `https:/evil.com`): only the plain form has one reading everywhere;
 * - backslashes anywhere: browsers treat `\` as `/` in http(s) URLs, other parsers do not, so
 *   `https://trusted.com\@evil.com` means a different host depending on who reads it;
 * - whitespace and control characters anywhere: browsers silently drop some of them (see `text.ts`);
 * - userinfo, even empty (`https://trusted.com@evil.com`, `https://@evil.com`): it makes URLs look like they
 *   point at a host they do not point at, and no redirect target legitimately needs it;
 * - anything the WHATWG URL parser itself rejects.
 */
export function parseStrictHttpUrl(input: string | URL): URL | null {
  const text = input instanceof URL ? input.href : input;
  if (typeof text !== "string" || text.length === 0) return null;
  if (hasControlOrWhitespace(text) || text.includes("\\")) return null;

  // With backslashes and whitespace excluded, the authority of an http(s) URL ends at the first / ? or #, for
  // both the WHATWG parser and older RFC 3986 parsers.
  const match = /^https?:\/\/([^/?#]*)/i.exec(text);
  if (match === null) return null;
  const authority = match[1]!;
  if (authority.length === 0 || authority.includes("@")) return null;

  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  // Defensive: the checks above should make these impossible.
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username !== "" || url.password !== "" || url.hostname === "") return null;
  return url;
}
