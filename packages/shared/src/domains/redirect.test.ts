import { describe, expect, it } from "vitest";
import { isRedirectUrlTrusted, type RedirectTrustConfig } from "./redirect.ts";

const strict: RedirectTrustConfig = {
  allowLocalhost: false,
  trustedDomains: [
    "https://app.example.com",
    "https://*.preview.example.com",
    "http://staging.example.org:8080",
  ],
};
const withLocalhost: RedirectTrustConfig = { ...strict, allowLocalhost: true };
const base = { baseUrlForRelative: "https://api.example.com/api/v1/auth/" };

describe("isRedirectUrlTrusted: absolute URLs and trusted domains", () => {
  it.each([
    "https://app.example.com",
    "https://app.example.com/",
    "https://app.example.com/handler/oauth-callback?x=1#y",
    "https://APP.example.com/cb",
    "https://app.example.com:443/cb",
    "https://pr-12.preview.example.com/cb",
    "http://staging.example.org:8080/cb",
  ])("trusts %j", (url) => {
    expect(isRedirectUrlTrusted(url, strict)).toBe(true);
  });

  it.each([
    "http://app.example.com/cb",
    "https://app.example.com:8443/cb",
    "https://example.com/cb",
    "https://other.example.com/cb",
    "https://evilapp.example.com/cb",
    "https://app.example.com.evil.com/cb",
    "https://app.example.com./cb",
    "https://preview.example.com/cb",
    "https://a.b.preview.example.com/cb",
    "https://staging.example.org/cb",
    "http://staging.example.org/cb",
    "https://staging.example.org:8080/cb",
    // Hostile spellings.
    "https://app.example.com@evil.com/",
    "https://app.example.com:443@evil.com/",
    "https://user:pass@app.example.com/",
    "https://@app.example.com/",
    "https://app.example.com\\@evil.com/",
    "https:\\\\app.example.com",
    "https:app.example.com",
    "https:/app.example.com",
    "//app.example.com/cb",
    "//evil.com",
    "\\\\evil.com",
    "/\\evil.com",
    "/\t/evil.com",
    "javascript:alert(1)",
    "javascript://app.example.com/%0Aalert(1)",
    "JAVASCRIPT:alert(document.domain)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "ftp://app.example.com/",
    "https://app.example.com%2F@evil.com",
    "https://exa mple.com",
    "https://app.example.com\n.evil.com",
    // Malformed.
    "",
    "not a url",
    "https://",
    "https://[::1",
    "https://app.example.com:99999/",
    "relative/path",
    "?next=x",
    "#frag",
  ])("refuses %j", (url) => {
    expect(isRedirectUrlTrusted(url, strict)).toBe(false);
    expect(isRedirectUrlTrusted(url, withLocalhost, base)).toBe(false);
  });

  it("accepts URL objects", () => {
    expect(isRedirectUrlTrusted(new URL("https://app.example.com/cb"), strict)).toBe(true);
    expect(isRedirectUrlTrusted(new URL("https://app.example.com@evil.com/"), strict)).toBe(false);
  });

  it("trusts nothing with no trusted domains", () => {
    expect(
      isRedirectUrlTrusted("https://app.example.com", { allowLocalhost: false, trustedDomains: [] }),
    ).toBe(false);
  });

  it("ignores invalid trusted domains but keeps using the valid ones", () => {
    const config = {
      allowLocalhost: false,
      trustedDomains: ["https://*.com", "nonsense", "https://ok.example.com"],
    };
    expect(isRedirectUrlTrusted("https://evil.com", config)).toBe(false);
    expect(isRedirectUrlTrusted("https://ok.example.com/x", config)).toBe(true);
  });
});

describe("isRedirectUrlTrusted: localhost", () => {
  it.each([
    "http://localhost",
    "http://localhost:3000/handler/sign-in",
    "https://localhost:8443",
    "http://LOCALHOST:3000",
    "http://app.localhost:5173/cb",
    "http://127.0.0.1:8080/cb",
    "http://127.1.2.3/",
    "http://[::1]:3000/",
  ])("trusts %j only when localhost is allowed", (url) => {
    expect(isRedirectUrlTrusted(url, withLocalhost)).toBe(true);
    expect(isRedirectUrlTrusted(url, strict)).toBe(false);
  });

  it.each([
    "http://127.0.0.1.nip.io/",
    "http://localhost.evil.com/",
    "http://localhost./",
    "http://evil.com/localhost",
    "http://evil.com?localhost",
    "http://localhost@evil.com/",
    "http://evil.com@localhost/",
    "http://10.0.0.1/",
    "http://0.0.0.0/",
    "javascript://localhost/%0Aalert(1)",
    "//localhost:3000/",
  ])("never trusts %j as localhost", (url) => {
    expect(isRedirectUrlTrusted(url, withLocalhost)).toBe(false);
  });

  it("still trusts an explicitly listed localhost domain when localhost is not allowed", () => {
    const config = { allowLocalhost: false, trustedDomains: ["http://localhost:3000"] };
    expect(isRedirectUrlTrusted("http://localhost:3000/cb", config)).toBe(true);
    expect(isRedirectUrlTrusted("http://localhost:3001/cb", config)).toBe(false);
  });
});

describe("isRedirectUrlTrusted: relative URLs", () => {
  it.each(["/", "/after-sign-in", "/handler/sign-in?after=/x#y", "/a/../b", "/%2F%2Fevil.com", "/@evil.com"])(
    "trusts %j with a base URL",
    (url) => {
      expect(isRedirectUrlTrusted(url, strict, base)).toBe(true);
      expect(
        isRedirectUrlTrusted(url, strict, { baseUrlForRelative: new URL("https://app.example.com") }),
      ).toBe(true);
    },
  );

  it.each(["/", "/after-sign-in"])("does not trust %j without a base URL", (url) => {
    expect(isRedirectUrlTrusted(url, strict)).toBe(false);
    expect(isRedirectUrlTrusted(url, withLocalhost, {})).toBe(false);
  });

  it.each([
    "//evil.com",
    "//evil.com/path",
    "///evil.com",
    // Protocol-relative even when it names the base's own host: the rule is "exactly one leading slash".
    "//api.example.com/after-sign-in",
    "/\\evil.com",
    "/\\/evil.com",
    "/path\\..\\..\\",
    "/\t/evil.com",
    "/\n/evil.com",
    "/ /evil.com",
    "/path with space",
    "/x\u0000",
  ])("refuses %j even with a base URL", (url) => {
    expect(isRedirectUrlTrusted(url, strict, base)).toBe(false);
  });

  it("refuses relative URLs when the base URL is itself unusable", () => {
    for (const baseUrlForRelative of [
      "",
      "not a url",
      "javascript:alert(1)",
      "https://a.com@evil.com",
      "/x",
    ]) {
      expect(isRedirectUrlTrusted("/cb", strict, { baseUrlForRelative })).toBe(false);
    }
  });
});

describe("isRedirectUrlTrusted never throws", () => {
  it.each([undefined, null, 42, {}, [], Symbol("s"), () => "https://app.example.com"])("url %s", (url) => {
    expect(isRedirectUrlTrusted(url as unknown as string, withLocalhost, base)).toBe(false);
  });

  it("survives broken configuration", () => {
    const url = "https://app.example.com/cb";
    expect(isRedirectUrlTrusted(url, undefined as unknown as RedirectTrustConfig)).toBe(false);
    expect(isRedirectUrlTrusted(url, {} as RedirectTrustConfig)).toBe(false);
    expect(
      isRedirectUrlTrusted(url, { allowLocalhost: false, trustedDomains: "x" as unknown as string[] }),
    ).toBe(false);
    expect(
      isRedirectUrlTrusted(url, { allowLocalhost: false, trustedDomains: [null, 1] as unknown as string[] }),
    ).toBe(false);
    expect(isRedirectUrlTrusted("/cb", strict, null as unknown as undefined)).toBe(false);
  });

  it("fails closed when a getter throws", () => {
    const config = {
      allowLocalhost: false,
      get trustedDomains(): string[] {
        throw new Error("boom");
      },
    };
    expect(isRedirectUrlTrusted("https://app.example.com/cb", config)).toBe(false);
  });
});
