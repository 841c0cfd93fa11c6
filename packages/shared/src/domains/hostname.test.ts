import { describe, expect, it } from "vitest";
import {
  canonicalizeHostname,
  isValidHostname,
  isValidHostnameWithWildcards,
  validateHostname,
} from "./hostname.ts";

describe("validateHostname without wildcards", () => {
  it.each([
    "example.com",
    "EXAMPLE.com",
    "app.example.com",
    "a.b.c.d.example.co.uk",
    "localhost",
    "my-app.example.com",
    "xn--bcher-kva.de",
    "127.0.0.1",
    "192.168.0.10",
    "a".repeat(63) + ".com",
    "-leading-hyphen.example.com",
  ])("accepts %s", (hostname) => {
    expect(validateHostname(hostname)).toEqual({ ok: true });
    expect(isValidHostname(hostname)).toBe(true);
  });

  it.each([
    ["", /Enter a hostname/],
    [".example.com", /must not start with a dot/],
    ["example.com.", /must not end with a dot/],
    ["example..com", /two dots in a row/],
    [".", /must not start with a dot/],
    ["..", /must not start with a dot/],
    ["*.example.com", /Wildcards \(\*\) are not allowed/],
    ["exa mple.com", /letters, digits, dots and hyphens/],
    ["example.com:443", /letters, digits, dots and hyphens/],
    ["example.com/path", /letters, digits, dots and hyphens/],
    ["https://example.com", /letters, digits, dots and hyphens/],
    ["user@example.com", /letters, digits, dots and hyphens/],
    ["under_score.example.com", /letters, digits, dots and hyphens/],
    ["bücher.de", /letters, digits, dots and hyphens/],
    ["exa%2emple.com", /letters, digits, dots and hyphens/],
    ["[::1]", /letters, digits, dots and hyphens/],
    ["a".repeat(64) + ".com", /at most 63/],
    [`${"a".repeat(60)}.`.repeat(5) + "com", /too long/],
    ["example.123", /ends in a number but is not a valid IP/],
    ["1.2.3.4.5", /not a valid IP/],
    ["256.1.1.1", /not a valid IP/],
    ["example.0x", /not a valid IP/],
  ])("refuses %j", (hostname, message) => {
    const result = validateHostname(hostname);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
    expect(isValidHostname(hostname)).toBe(false);
  });

  it("refuses values that are not strings instead of throwing", () => {
    expect(validateHostname(undefined as unknown as string).ok).toBe(false);
    expect(validateHostname(42 as unknown as string).ok).toBe(false);
  });
});

describe("validateHostname with wildcards", () => {
  it.each([
    "*.example.com",
    "*.EXAMPLE.com",
    "*.app.example.com",
    "*.*.example.com",
    "app.*.example.com",
    "app-*.example.com",
    "*-preview.example.com",
    "a*b.example.com",
    "*-*.example.com",
    "example.com",
    "localhost",
  ])("accepts %s", (hostname) => {
    expect(validateHostname(hostname, { allowWildcards: true })).toEqual({ ok: true });
    expect(isValidHostnameWithWildcards(hostname)).toBe(true);
  });

  it.each([
    ["*", /at least two fixed parts/],
    ["*.com", /at least two fixed parts/],
    ["example.*", /at least two fixed parts/],
    ["*.example.*", /at least two fixed parts/],
    ["app.example*.com", /at least two fixed parts/],
    ["*.localhost", /at least two fixed parts/],
    ["**.example.com", /\*\* is not supported/],
    ["a.**.example.com", /\*\* is not supported/],
    ["*.0.0.1", /IP addresses/],
    ["127.0.0.*", /at least two fixed parts/],
    ["*.example.0x1f", /IP addresses/],
    [".*.example.com", /must not start with a dot/],
    ["*.example.com.", /must not end with a dot/],
    ["*..example.com", /two dots in a row/],
    ["*.exa_mple.com", /letters, digits, dots, hyphens and \* wildcards/],
    ["?.example.com", /letters, digits, dots, hyphens and \* wildcards/],
    ["*.bücher.de", /letters, digits, dots, hyphens and \* wildcards/],
    ["*.example.com:443", /letters, digits, dots, hyphens and \* wildcards/],
  ])("refuses %j", (hostname, message) => {
    const result = validateHostname(hostname, { allowWildcards: true });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
    expect(isValidHostnameWithWildcards(hostname)).toBe(false);
  });
});

describe("canonicalizeHostname", () => {
  it.each([
    ["example.com", "example.com"],
    ["EXAMPLE.Com", "example.com"],
    ["bücher.de", "xn--bcher-kva.de"],
    ["ＥＸＡＭＰＬＥ.com", "example.com"],
    ["127.0.0.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["::1", "[::1]"],
    ["[::1]", "[::1]"],
    ["[0:0:0:0:0:0:0:1]", "[::1]"],
    ["[2001:DB8::1]", "[2001:db8::1]"],
    ["example.com.", "example.com."],
  ])("%j -> %j", (input, expected) => {
    expect(canonicalizeHostname(input)).toBe(expected);
  });

  it.each([
    "",
    "example.com:80",
    "[::1]:80",
    "example.com/x",
    "a@example.com",
    "example.com#x",
    "example.com?x",
    "exa\\mple.com",
    "exa%2emple.com",
    "exa mple.com",
    "exa\tmple.com",
    " example.com",
    "example.123",
    "256.0.0.1",
    "[::g]",
    "[example.com]",
    "xn--zz.com",
    "a".repeat(300),
  ])("refuses %j", (input) => {
    expect(canonicalizeHostname(input)).toBeNull();
  });
});
