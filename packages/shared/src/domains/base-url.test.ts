import { describe, expect, it } from "vitest";
import { parseTrustedDomainBaseUrl, validateTrustedDomainBaseUrl } from "./base-url.ts";

describe("parseTrustedDomainBaseUrl accepts", () => {
  it.each([
    ["https://example.com", "https", "example.com", 443, false, "https://example.com"],
    ["https://example.com/", "https", "example.com", 443, false, "https://example.com"],
    ["HTTPS://Example.COM", "https", "example.com", 443, false, "https://example.com"],
    ["https://app.example.com:8443", "https", "app.example.com", 8443, false, "https://app.example.com:8443"],
    ["https://example.com:443", "https", "example.com", 443, false, "https://example.com"],
    ["http://example.com:80/", "http", "example.com", 80, false, "http://example.com"],
    ["http://example.com:443", "http", "example.com", 443, false, "http://example.com:443"],
    ["https://example.com:0443", "https", "example.com", 443, false, "https://example.com"],
    ["https://*.example.com", "https", "*.example.com", 443, true, "https://*.example.com"],
    ["https://*.Example.com:3000/", "https", "*.example.com", 3000, true, "https://*.example.com:3000"],
    ["https://pr-*.preview.example.com", "https", "pr-*.preview.example.com", 443, true, null],
    ["http://localhost:3000", "http", "localhost", 3000, false, "http://localhost:3000"],
    ["http://127.0.0.1:8080", "http", "127.0.0.1", 8080, false, "http://127.0.0.1:8080"],
    ["http://127.1", "http", "127.0.0.1", 80, false, "http://127.0.0.1"],
    ["http://0x7f.0.0.1", "http", "127.0.0.1", 80, false, "http://127.0.0.1"],
    ["http://[::1]:3000", "http", "[::1]", 3000, false, "http://[::1]:3000"],
    ["https://[2001:DB8::1]", "https", "[2001:db8::1]", 443, false, "https://[2001:db8::1]"],
    ["https://bücher.de", "https", "xn--bcher-kva.de", 443, false, "https://xn--bcher-kva.de"],
    ["https://xn--bcher-kva.de", "https", "xn--bcher-kva.de", 443, false, "https://xn--bcher-kva.de"],
    ["https://*.xn--bcher-kva.de", "https", "*.xn--bcher-kva.de", 443, true, "https://*.xn--bcher-kva.de"],
  ])("%j", (input, protocol, hostname, port, hasWildcard, normalized) => {
    const result = parseTrustedDomainBaseUrl(input);
    expect(result).toMatchObject({ ok: true, value: { protocol, hostname, port, hasWildcard } });
    if (normalized !== null && result.ok) expect(result.value.normalized).toBe(normalized);
    expect(validateTrustedDomainBaseUrl(input)).toEqual({ ok: true });
  });
});

describe("parseTrustedDomainBaseUrl refuses", () => {
  it.each([
    ["", /Enter a URL/],
    ["example.com", /must start with https:\/\//],
    ["*.example.com", /must start with https:\/\//],
    ["//example.com", /must start with https:\/\//],
    ["ftp://example.com", /must start with https:\/\//],
    ["javascript:alert(1)", /must start with https:\/\//],
    ["https:example.com", /must start with https:\/\//],
    ["https:/example.com", /must start with https:\/\//],
    ["https:\\\\example.com", /backslashes/],
    ["https://example.com\\", /backslashes/],
    [" https://example.com", /spaces or control characters/],
    ["https://example.com ", /spaces or control characters/],
    ["https://exa\tmple.com", /spaces or control characters/],
    ["https://example.com/path", /must not contain a path/],
    ["https://example.com/handler/", /must not contain a path/],
    ["https://example.com//", /must not contain a path/],
    ["https://example.com?x=1", /query/],
    ["https://example.com/?", /query/],
    ["https://example.com#top", /fragment/],
    ["https://example.com/#", /fragment/],
    ["https://user@example.com", /username or password/],
    ["https://user:pw@example.com", /username or password/],
    ["https://trusted.com@evil.com", /username or password/],
    ["https://", /no hostname/],
    ["https:///", /no hostname/],
    ["https://:443", /Enter a hostname/],
    ["https://example.com:", /port/],
    ["https://example.com:0", /port/],
    ["https://example.com:65536", /port/],
    ["https://example.com:123456", /port/],
    ["https://example.com:http", /port/],
    ["https://example.com:-1", /port/],
    ["https://example.com:80:80", /port/],
    ["https://.example.com", /must not start with a dot/],
    ["https://example.com.", /must not end with a dot/],
    ["https://example..com", /two dots in a row/],
    ["https://*.example..com", /two dots in a row/],
    ["https://exa_mple.com", /letters, digits, dots and hyphens/],
    ["https://exa%2emple.com", /letters, digits, dots and hyphens/],
    ["https://example.123", /not a valid IP/],
    ["https://1.2.3.4.5", /not a valid IP/],
    ["https://*", /at least two fixed parts/],
    ["https://*.com", /at least two fixed parts/],
    ["https://example.*", /at least two fixed parts/],
    ["https://**.example.com", /\*\* is not supported/],
    ["https://*.0.0.1", /IP addresses/],
    ["https://*.bücher.de", /ASCII/],
    ["https://a。。b.com", /two dots in a row/],
    ["https://xn--zz.com", /not valid/],
    ["https://[::1", /closing bracket/],
    ["https://[::1]x", /after the IPv6 address/],
    ["https://[::g]", /IPv6 address is not valid/],
    ["https://[*::1]", /IPv6 address is not valid/],
    ["https://[::1]:0", /port/],
  ])("%j", (input, message) => {
    const result = parseTrustedDomainBaseUrl(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
    expect(validateTrustedDomainBaseUrl(input).ok).toBe(false);
  });

  it("refuses values that are not strings instead of throwing", () => {
    expect(parseTrustedDomainBaseUrl(undefined as unknown as string).ok).toBe(false);
    expect(parseTrustedDomainBaseUrl({} as unknown as string).ok).toBe(false);
  });
});
