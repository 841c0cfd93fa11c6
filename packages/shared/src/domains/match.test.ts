import { describe, expect, it } from "vitest";
import { matchesTrustedDomain, matchHostnamePattern } from "./match.ts";

describe("matchHostnamePattern", () => {
  it.each([
    // [hostname, pattern, matches]
    ["example.com", "example.com", true],
    ["EXAMPLE.com", "example.COM", true],
    ["example.com", "example.org", false],
    ["evilexample.com", "example.com", false],
    ["example.com.evil.com", "example.com", false],
    ["a.example.com", "*.example.com", true],
    ["A.EXAMPLE.COM", "*.example.com", true],
    ["a-b-c.example.com", "*.example.com", true],
    ["a.b.example.com", "*.example.com", false],
    ["example.com", "*.example.com", false],
    [".example.com", "*.example.com", false],
    ["evilexample.com", "*.example.com", false],
    ["a.evilexample.com", "*.example.com", false],
    ["a.example.com.evil.com", "*.example.com", false],
    ["a.example.com.", "*.example.com", false],
    ["a.b.example.com", "*.*.example.com", true],
    ["a.example.com", "*.*.example.com", false],
    ["app.x.example.com", "app.*.example.com", true],
    ["app.example.com", "app.*.example.com", false],
    ["app-pr1.example.com", "app-*.example.com", true],
    ["app-.example.com", "app-*.example.com", false],
    ["app.example.com", "app-*.example.com", false],
    ["xapp-1.example.com", "app-*.example.com", false],
    ["web-preview.example.com", "*-preview.example.com", true],
    ["preview.example.com", "*-preview.example.com", false],
    ["ab.example.com", "a*b.example.com", false],
    ["axb.example.com", "a*b.example.com", true],
    ["a.b.example.com", "a*b.example.com", false],
    ["ab.example.com", "**.example.com", true],
    ["a.example.com", "**.example.com", false],
    ["a-b.example.com", "*-*.example.com", true],
    ["a--b.example.com", "*-*.example.com", true],
    ["-b.example.com", "*-*.example.com", false],
    ["anything", "*", true],
    ["a.b", "*", false],
    ["[::1]", "[::1]", true],
    ["127.0.0.1", "127.0.0.1", true],
    ["a+.example.com", "a+.example.com", true],
    ["aa.example.com", "a+.example.com", false],
    ["aexample.com", "a.example.com", false],
  ])("%j against %j: %j", (hostname, pattern, expected) => {
    expect(matchHostnamePattern(hostname, pattern)).toBe(expected);
  });

  it("treats regex characters in the pattern literally", () => {
    expect(matchHostnamePattern("axexample.com", "a.example.com")).toBe(false);
    expect(matchHostnamePattern("x.example.com", "(*).example.com")).toBe(false);
    expect(matchHostnamePattern("a.example.com", "[a-z].example.com")).toBe(false);
    expect(matchHostnamePattern("a.example.com", "*$.example.com")).toBe(false);
  });

  it("returns false for values that are not strings", () => {
    expect(matchHostnamePattern(undefined as unknown as string, "*.example.com")).toBe(false);
    expect(matchHostnamePattern("a.example.com", null as unknown as string)).toBe(false);
  });
});

describe("matchesTrustedDomain", () => {
  it.each([
    // [url, baseUrl, matches]
    ["https://example.com", "https://example.com", true],
    ["https://example.com/any/path?q=1#f", "https://example.com", true],
    ["https://EXAMPLE.COM/", "https://example.com", true],
    ["https://example.com/", "HTTPS://Example.com/", true],
    ["http://example.com", "https://example.com", false],
    ["https://example.com", "http://example.com", false],
    ["https://evilexample.com", "https://example.com", false],
    ["https://example.com.evil.com", "https://example.com", false],
    ["https://example.com.", "https://example.com", false],
    ["https://sub.example.com", "https://example.com", false],
    ["https://example.com:443", "https://example.com", true],
    ["https://example.com", "https://example.com:443", true],
    ["http://example.com:80/x", "http://example.com", true],
    ["https://example.com:8443", "https://example.com", false],
    ["https://example.com", "https://example.com:8443", false],
    ["https://example.com:8443/cb", "https://example.com:8443", true],
    ["https://example.com:80", "https://example.com", false],
    ["http://example.com:443", "http://example.com", false],
    ["https://a.example.com/cb", "https://*.example.com", true],
    ["https://a.b.example.com/cb", "https://*.example.com", false],
    ["https://example.com/cb", "https://*.example.com", false],
    ["https://a.example.com:444", "https://*.example.com", false],
    ["https://a.example.com:3000", "https://*.example.com:3000", true],
    ["http://a.example.com", "https://*.example.com", false],
    ["https://a.evilexample.com", "https://*.example.com", false],
    ["https://bücher.de/x", "https://xn--bcher-kva.de", true],
    ["https://xn--bcher-kva.de/x", "https://bücher.de", true],
    ["https://a.bücher.de/", "https://*.xn--bcher-kva.de", true],
    ["https://ｅｘａｍｐｌｅ.com/", "https://example.com", true],
    ["https://exаmple.com/", "https://example.com", false], // Cyrillic а
    ["http://localhost:3000/cb", "http://localhost:3000", true],
    ["http://localhost:3001/cb", "http://localhost:3000", false],
    ["http://127.0.0.1/", "http://127.1", true],
    ["http://0x7f.0.0.1/", "http://127.0.0.1", true],
    ["http://[::1]:3000/", "http://[::1]:3000", true],
    ["http://[0:0:0:0:0:0:0:1]:3000/", "http://[::1]:3000", true],
    // Hostile URLs never match.
    ["https://example.com@evil.com", "https://example.com", false],
    ["https://evil.com@example.com", "https://example.com", false],
    ["https://example.com\\@evil.com", "https://example.com", false],
    ["//example.com/cb", "https://example.com", false],
    ["/cb", "https://example.com", false],
    ["javascript://example.com/%0Aalert(1)", "https://example.com", false],
    ["https:example.com", "https://example.com", false],
    ["https://exa\tmple.com", "https://example.com", false],
    // Invalid base URLs trust nothing.
    ["https://example.com", "example.com", false],
    ["https://example.com/", "https://example.com/path", false],
    ["https://example.com", "https://example.com.", false],
    ["https://a.com", "https://*.com", false],
    ["https://a.b.example.com", "https://**.example.com", false],
    ["https://example.com", "", false],
  ])("%j in %j: %j", (url, baseUrl, expected) => {
    expect(matchesTrustedDomain(url, baseUrl)).toBe(expected);
  });

  it("accepts URL objects", () => {
    expect(matchesTrustedDomain(new URL("https://a.example.com/x"), "https://*.example.com")).toBe(true);
    expect(matchesTrustedDomain(new URL("https://example.com@evil.com/"), "https://evil.com")).toBe(false);
  });

  it("never throws on junk", () => {
    for (const junk of [undefined, null, 42, {}, [], Symbol("x")]) {
      expect(matchesTrustedDomain(junk as unknown as string, "https://example.com")).toBe(false);
      expect(matchesTrustedDomain("https://example.com", junk as unknown as string)).toBe(false);
    }
  });
});
