import { parseTrustedDomainBaseUrl } from "./base-url.ts";
import { isIpAddress } from "./ip.ts";
import { isLocalhost } from "./localhost.ts";

export type ProductionModeProblemCode =
  | "localhost_allowed"
  | "invalid_domain"
  | "localhost_domain"
  | "ip_domain"
  | "non_https_domain";

export interface ProductionModeProblem {
  code: ProductionModeProblemCode;
  /** The trusted-domain base URL concerned, exactly as configured; absent for project-wide problems. */
  domain?: string;
  message: string;
}

export interface ProductionModeDomainConfig {
  /** `domains.allowLocalhost` */
  allowLocalhost: boolean;
  /** The `baseUrl` of every `domains.trustedDomains` entry. */
  trustedDomains: readonly string[];
}

/**
 * What stands between this domain configuration and production mode; an empty array means ready.
 *
 * Reported, in order: localhost allowed as a redirect target; then per trusted domain, in the given order:
 * an invalid base URL (nothing else is reported for it), a localhost domain or else an IP-address domain (a
 * loopback IP such as 127.0.0.1 counts as localhost only), and plain http (reported alongside the others).
 *
 * Why: in production, redirects that carry sign-in codes must only go to sites the owner controls and that
 * are reached over TLS. Localhost is every visitor's own machine, an IP address cannot have a certificate
 * tied to a name the owner controls, and http can be read and rewritten on the way.
 */
export function productionModeChecks(config: ProductionModeDomainConfig): ProductionModeProblem[] {
  const problems: ProductionModeProblem[] = [];

  if (config.allowLocalhost) {
    problems.push({
      code: "localhost_allowed",
      message:
        'Localhost is allowed as a redirect target. Turn off "Allow localhost" before going to production.',
    });
  }

  for (const domain of config.trustedDomains) {
    const parsed = parseTrustedDomainBaseUrl(domain);
    if (!parsed.ok) {
      problems.push({
        code: "invalid_domain",
        domain,
        message: `The trusted domain "${domain}" is not valid: ${parsed.message}`,
      });
      continue;
    }

    const { hostname, hasWildcard, protocol } = parsed.value;
    // For a pattern, ask about a name it matches: every * matches "x". Validation already refuses wildcards in
    // IP addresses, so this only matters for patterns such as *.dev.localhost.
    const sample = hasWildcard ? hostname.replaceAll("*", "x") : hostname;
    if (isLocalhost(sample)) {
      problems.push({
        code: "localhost_domain",
        domain,
        message: `The trusted domain "${domain}" points to localhost. Remove it before going to production.`,
      });
    } else if (isIpAddress(sample)) {
      problems.push({
        code: "ip_domain",
        domain,
        message: `The trusted domain "${domain}" is an IP address. Use a domain name in production.`,
      });
    }

    if (protocol !== "https") {
      problems.push({
        code: "non_https_domain",
        domain,
        message: `The trusted domain "${domain}" does not use HTTPS. Use https:// in production.`,
      });
    }
  }

  return problems;
}
