import type { ValidationResult } from "./result.ts";
import { hasControlOrWhitespace } from "./text.ts";

/** DNS limits: a whole name of at most 253 characters, each dot-separated label at most 63. */
export const MAX_HOSTNAME_LENGTH = 253;
export const MAX_LABEL_LENGTH = 63;

export interface HostnameValidationOptions {
  /** Allow `*` wildcards (see `matchHostnamePattern` for what they match). Default false. */
  allowWildcards?: boolean;
}

/**
 * Checks the spelling of a hostname (no scheme, no port), such as `example.com` or, with wildcards,
 * `*.example.com`.
 *
 * Rules:
 * - ASCII letters, digits, dots and hyphens only, plus `*` when wildcards are allowed. Internationalised names
 *   must be given in their ASCII (punycode, `xn--`) form here; `parseTrustedDomainBaseUrl` converts them.
 * - No leading, trailing or doubled dots; at most 253 characters, each label at most 63.
 * - A name ending in a numeric label must be a valid IPv4 address: browsers read `example.123` as a broken
 *   IPv4 address, not as a domain.
 * - Wildcards: a single `*` at a time (`**` is refused: in some other implementations it spans dots, so we
 *   refuse it rather than silently give it a narrower meaning); the last two labels must be fixed, because
 *   `*.com` or `example.*` would trust other people's sites; no wildcards in IP addresses.
 *
 * Leading or trailing hyphens in a label are accepted: browsers resolve such names and they carry no risk here.
 */
export function validateHostname(
  hostname: string,
  options: HostnameValidationOptions = {},
): ValidationResult {
  const allowWildcards = options.allowWildcards === true;
  if (typeof hostname !== "string" || hostname.length === 0) {
    return fail("Enter a hostname, like example.com.");
  }
  if (hostname.length > MAX_HOSTNAME_LENGTH) {
    return fail(`The hostname is too long (at most ${MAX_HOSTNAME_LENGTH} characters).`);
  }
  const allowedCharacters = allowWildcards ? /^[a-zA-Z0-9.*-]+$/ : /^[a-zA-Z0-9.-]+$/;
  if (!allowedCharacters.test(hostname)) {
    if (!allowWildcards && hostname.includes("*")) {
      return fail("Wildcards (*) are not allowed here.");
    }
    return fail(
      allowWildcards
        ? "The hostname may only contain letters, digits, dots, hyphens and * wildcards."
        : "The hostname may only contain letters, digits, dots and hyphens.",
    );
  }
  if (hostname.startsWith(".")) return fail("The hostname must not start with a dot.");
  if (hostname.endsWith(".")) return fail("The hostname must not end with a dot.");
  if (hostname.includes("..")) return fail("The hostname must not contain two dots in a row.");

  const labels = hostname.split(".");
  if (labels.some((label) => label.length > MAX_LABEL_LENGTH)) {
    return fail(`Each part of the hostname between dots may be at most ${MAX_LABEL_LENGTH} characters long.`);
  }

  const lastLabel = labels[labels.length - 1]!;
  if (hostname.includes("*")) {
    if (hostname.includes("**")) {
      return fail("Use a single * as a wildcard; ** is not supported. A * never matches dots.");
    }
    if (endsInANumber(lastLabel)) {
      return fail("Wildcards cannot be used in IP addresses.");
    }
    // With fewer than three labels the wildcard is necessarily among the last two.
    if (labels.slice(-2).some((label) => label.includes("*"))) {
      return fail(
        "A wildcard must be followed by at least two fixed parts, like *.example.com; " +
          "*.com or example.* would trust sites you do not own.",
      );
    }
    return { ok: true };
  }

  // WHATWG URL parsing treats any hostname whose last label is numeric as an IPv4 address; when that fails to
  // parse, the browser refuses the URL. Such names are therefore valid only when they really are IPv4.
  if (endsInANumber(lastLabel) && canonicalizeHostname(hostname) === null) {
    return fail("The hostname ends in a number but is not a valid IP address.");
  }
  return { ok: true };
}

/** `validateHostname` without wildcards, as a boolean. */
export function isValidHostname(hostname: string): boolean {
  return validateHostname(hostname).ok;
}

/** `validateHostname` with wildcards allowed, as a boolean. */
export function isValidHostnameWithWildcards(hostname: string): boolean {
  return validateHostname(hostname, { allowWildcards: true }).ok;
}

/**
 * The hostname as a browser would see it, or null when a browser would refuse it. Uses the WHATWG URL parser,
 * so the result is lowercased, internationalised names become punycode (`bücher.de` -> `xn--bcher-kva.de`),
 * IPv4 shorthands become dotted decimal (`0x7f.1` -> `127.0.0.1`) and IPv6 is bracketed and compressed
 * (`0:0:0:0:0:0:0:1` -> `[::1]`). Bare IPv6 (`::1`) is accepted too.
 *
 * Why: every comparison we make must be about the host the browser will actually connect to, not about the
 * spelling someone typed.
 *
 * Input that could change the structure of a URL (`/ ? # @ \ %`, whitespace, a port) gives null rather than
 * being parsed as something else.
 */
export function canonicalizeHostname(hostname: string): string | null {
  if (typeof hostname !== "string" || hostname.length === 0 || hostname.length > MAX_HOSTNAME_LENGTH + 2) {
    return null;
  }
  if (hasControlOrWhitespace(hostname) || /[/?#@\\%]/.test(hostname)) return null;

  let host = hostname;
  if (host.includes(":") || host.includes("[") || host.includes("]")) {
    // Only an IPv6 literal may contain a colon or brackets; anything else (like "example.com:80") is refused.
    if (!host.startsWith("[")) host = `[${host}]`;
    if (!/^\[[0-9a-fA-F:.]+\]$/.test(host)) return null;
  }

  let url: URL;
  try {
    url = new URL(`http://${host}/`);
  } catch {
    return null;
  }
  // Defensive: the checks above should make these impossible.
  if (url.port !== "" || url.pathname !== "/" || url.username !== "" || url.password !== "") return null;
  return url.hostname === "" ? null : url.hostname;
}

/**
 * The WHATWG "ends in a number" test for a hostname's last label: all decimal digits, or `0x` followed by hex
 * digits. A browser parses such hostnames as IPv4 addresses.
 */
export function endsInANumber(lastLabel: string): boolean {
  return /^(?:[0-9]+|0[xX][0-9a-fA-F]*)$/.test(lastLabel);
}

function fail(message: string): ValidationResult {
  return { ok: false, message };
}
