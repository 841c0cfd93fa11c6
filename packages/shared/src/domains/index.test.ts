import { describe, expect, it } from "vitest";
import * as domains from "./index.ts";

describe("domains public API", () => {
  it("exports the functions the server, SDK and dashboard use", () => {
    for (const name of [
      "canonicalizeHostname",
      "defaultPort",
      "isIpAddress",
      "isLocalhost",
      "isRedirectUrlTrusted",
      "isValidHostname",
      "isValidHostnameWithWildcards",
      "matchesTrustedDomain",
      "matchHostnamePattern",
      "parseStrictHttpUrl",
      "parseTrustedDomainBaseUrl",
      "productionModeChecks",
      "validateHostname",
      "validateTrustedDomainBaseUrl",
    ]) {
      expect(typeof (domains as Record<string, unknown>)[name], name).toBe("function");
    }
  });

  it("works end to end: a config, a callback check and the production check", () => {
    const config = { allowLocalhost: true, trustedDomains: ["https://*.example.com", "https://example.com"] };
    expect(config.trustedDomains.every((d) => domains.validateTrustedDomainBaseUrl(d).ok)).toBe(true);
    expect(domains.isRedirectUrlTrusted("https://app.example.com/handler/email-verification", config)).toBe(
      true,
    );
    expect(domains.isRedirectUrlTrusted("http://localhost:3000/handler", config)).toBe(true);
    expect(domains.isRedirectUrlTrusted("https://example.com.evil.com/", config)).toBe(false);
    expect(domains.productionModeChecks(config).map((p) => p.code)).toEqual(["localhost_allowed"]);
  });
});
