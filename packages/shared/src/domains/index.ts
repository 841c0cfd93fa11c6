export {
  parseTrustedDomainBaseUrl,
  type TrustedDomainBaseUrl,
  validateTrustedDomainBaseUrl,
} from "./base-url.ts";
export {
  canonicalizeHostname,
  type HostnameValidationOptions,
  isValidHostname,
  isValidHostnameWithWildcards,
  validateHostname,
} from "./hostname.ts";
export { isIpAddress } from "./ip.ts";
export { isLocalhost } from "./localhost.ts";
export { matchesTrustedDomain, matchHostnamePattern } from "./match.ts";
export {
  type ProductionModeDomainConfig,
  type ProductionModeProblem,
  type ProductionModeProblemCode,
  productionModeChecks,
} from "./production.ts";
export { isRedirectUrlTrusted, type RedirectTrustConfig, type RedirectTrustOptions } from "./redirect.ts";
export type { ParseResult, ValidationResult } from "./result.ts";
export { defaultPort, type HttpProtocol, parseStrictHttpUrl } from "./url.ts";
