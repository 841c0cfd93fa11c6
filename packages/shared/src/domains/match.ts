import { parseTrustedDomainBaseUrl, type TrustedDomainBaseUrl } from "./base-url.ts";
import { effectivePort, parseStrictHttpUrl } from "./url.ts";

/**
 * Does `hostname` match `pattern`? Both are compared case-insensitively; give them in canonical form
 * (`URL.hostname`, `TrustedDomainBaseUrl.hostname`).
 *
 * Without `*`, the names must be equal. A `*` stands for one or more characters within a single label: it
 * never matches a dot, and never matches nothing. So `*.example.com` matches `a.example.com` but not
 * `a.b.example.com` (use `*.*.example.com`) and not `example.com` itself (list it separately); `app-*.example.com`
 * matches `app-pr1.example.com` but not `app-.example.com`.
 *
 * Why not let `*` span dots: then `*.example.com` would also trust every deeper name, including ones handed
 * out to third parties (`customer.cdn.example.com`), and a trailing-dot or extra-label trick would have more
 * room. Matching label by label is the narrower, easier-to-predict reading. `**` is nothing special here
 * (two wildcards side by side, so at least two characters); `validateHostname` refuses it anyway.
 */
export function matchHostnamePattern(hostname: string, pattern: string): boolean {
  if (typeof hostname !== "string" || typeof pattern !== "string") return false;
  const host = hostname.toLowerCase();
  const wanted = pattern.toLowerCase();
  if (!wanted.includes("*")) return host === wanted;

  const hostLabels = host.split(".");
  const patternLabels = wanted.split(".");
  // A * never spans a dot, so both must have the same number of labels.
  if (hostLabels.length !== patternLabels.length) return false;
  return patternLabels.every((patternLabel, i) => matchLabel(hostLabels[i]!, patternLabel));
}

function matchLabel(label: string, patternLabel: string): boolean {
  if (!patternLabel.includes("*")) return label === patternLabel;
  // Literal pieces are escaped; each * becomes "one or more non-dot characters". Labels are at most a few
  // dozen characters, so backtracking cannot get expensive.
  const source = patternLabel
    .split("*")
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&"))
    .join("[^.]+");
  return new RegExp(`^${source}$`).test(label);
}

/**
 * Is `url` inside the trusted domain `baseUrl`? The scheme must be the same, the host must match (with `*`
 * wildcards, see `matchHostnamePattern`) and the port must be the same, default ports made explicit
 * (`https://a.com` and `https://a.com:443` are the same; `https://a.com:8443` is not). The path is not
 * compared. Returns false for anything malformed or suspicious (see `parseStrictHttpUrl`); never throws.
 */
export function matchesTrustedDomain(url: string | URL, baseUrl: string): boolean {
  const target = parseStrictHttpUrl(url);
  if (target === null) return false;
  const base = parseTrustedDomainBaseUrl(baseUrl);
  if (!base.ok) return false;
  return urlMatchesBase(target, base.value);
}

/** `matchesTrustedDomain` for an already strictly parsed URL and base URL. */
export function urlMatchesBase(target: URL, base: TrustedDomainBaseUrl): boolean {
  if (target.protocol !== `${base.protocol}:`) return false;
  if (effectivePort(target) !== base.port) return false;
  return matchHostnamePattern(target.hostname, base.hostname);
}
