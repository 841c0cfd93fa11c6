import { describe, expect, it } from "vitest";
import { defaultPort, effectivePort, parseStrictHttpUrl } from "./url.ts";

describe("parseStrictHttpUrl", () => {
  it.each([
    ["https://example.com", "example.com"],
    ["https://example.com/", "example.com"],
    ["HTTPS://EXAMPLE.COM/Path?q=1#frag", "example.com"],
    ["http://localhost:3000/callback", "localhost"],
    ["https://bücher.de/", "xn--bcher-kva.de"],
    ["http://[::1]:8080/", "[::1]"],
    ["https://example.com/a@b", "example.com"],
    ["https://example.com/?next=https://evil.com", "example.com"],
  ])("parses %j (host %j)", (input, hostname) => {
    expect(parseStrictHttpUrl(input)?.hostname).toBe(hostname);
  });

  it("accepts URL objects", () => {
    expect(parseStrictHttpUrl(new URL("https://example.com/x"))?.href).toBe("https://example.com/x");
  });

  it.each([
    "",
    "example.com",
    "/relative",
    "//evil.com",
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "ftp://example.com",
    "file:///etc/passwd",
    "https:evil.com",
    "https:/evil.com",
    "https:\\\\evil.com",
    "https:/\\evil.com",
    "https://trusted.com\\@evil.com",
    "https://trusted.com\\.evil.com",
    "https://trusted.com@evil.com",
    "https://user:pass@trusted.com",
    "https://@trusted.com",
    "https://:@trusted.com",
    "https://",
    "https:///evil.com",
    "https://exa mple.com",
    " https://example.com",
    "https://example.com ",
    "https://exa\tmple.com",
    "https://example.com/\n",
    "java\tscript:alert(1)",
    "https://example.com:99999",
    "https://example.123",
    "https://[::1",
    "https://trusted.com%40evil.com",
  ])("refuses %j", (input) => {
    expect(parseStrictHttpUrl(input)).toBeNull();
  });

  it("refuses URL objects carrying userinfo", () => {
    expect(parseStrictHttpUrl(new URL("https://trusted.com@evil.com/"))).toBeNull();
  });

  it("refuses values that are not strings or URLs", () => {
    expect(parseStrictHttpUrl(undefined as unknown as string)).toBeNull();
    expect(parseStrictHttpUrl({ href: "https://a.com" } as unknown as string)).toBeNull();
  });
});

describe("ports", () => {
  it("makes default ports explicit", () => {
    expect(defaultPort("https")).toBe(443);
    expect(defaultPort("http")).toBe(80);
    expect(effectivePort(new URL("https://a.com"))).toBe(443);
    expect(effectivePort(new URL("http://a.com"))).toBe(80);
    expect(effectivePort(new URL("https://a.com:443"))).toBe(443);
    expect(effectivePort(new URL("https://a.com:8443"))).toBe(8443);
    expect(effectivePort(new URL("http://a.com:443"))).toBe(443);
  });
});
