import { describe, expect, it } from "vitest";
import { productionModeChecks } from "./production.ts";

const codes = (allowLocalhost: boolean, trustedDomains: string[]) =>
  productionModeChecks({ allowLocalhost, trustedDomains }).map((p) => [p.code, p.domain]);

describe("productionModeChecks", () => {
  it("is empty for a production-ready configuration", () => {
    expect(
      productionModeChecks({
        allowLocalhost: false,
        trustedDomains: ["https://example.com", "https://*.example.com", "https://app.example.com:8443"],
      }),
    ).toEqual([]);
    expect(productionModeChecks({ allowLocalhost: false, trustedDomains: [] })).toEqual([]);
  });

  it("reports localhost being allowed", () => {
    const problems = productionModeChecks({ allowLocalhost: true, trustedDomains: ["https://example.com"] });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: "localhost_allowed" });
    expect(problems[0]!.domain).toBeUndefined();
    expect(problems[0]!.message).toMatch(/localhost/i);
  });

  it.each([
    ["example.com"],
    ["https://example.com/path"],
    ["https://*.com"],
    ["https://example..com"],
    ["ftp://example.com"],
    [""],
  ])("reports the invalid domain %j and nothing else about it", (domain) => {
    const problems = productionModeChecks({ allowLocalhost: false, trustedDomains: [domain] });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: "invalid_domain", domain });
    expect(problems[0]!.message).toContain(`"${domain}"`);
  });

  it.each([
    ["https://localhost", [["localhost_domain", "https://localhost"]]],
    ["https://app.localhost:3000", [["localhost_domain", "https://app.localhost:3000"]]],
    ["https://*.dev.localhost", [["localhost_domain", "https://*.dev.localhost"]]],
    ["https://127.0.0.1", [["localhost_domain", "https://127.0.0.1"]]],
    ["https://0x7f.1", [["localhost_domain", "https://0x7f.1"]]],
    ["https://[::1]", [["localhost_domain", "https://[::1]"]]],
    ["https://10.0.0.1", [["ip_domain", "https://10.0.0.1"]]],
    ["https://167772161", [["ip_domain", "https://167772161"]]],
    ["https://[2001:db8::1]", [["ip_domain", "https://[2001:db8::1]"]]],
    ["http://example.com", [["non_https_domain", "http://example.com"]]],
    ["http://*.example.com:8080", [["non_https_domain", "http://*.example.com:8080"]]],
    [
      "http://localhost:3000",
      [
        ["localhost_domain", "http://localhost:3000"],
        ["non_https_domain", "http://localhost:3000"],
      ],
    ],
    [
      "http://192.168.1.20:8080",
      [
        ["ip_domain", "http://192.168.1.20:8080"],
        ["non_https_domain", "http://192.168.1.20:8080"],
      ],
    ],
    ["https://127.0.0.1.nip.io", []],
    ["https://localhost.example.com", []],
  ])("checks %j", (domain, expected) => {
    expect(codes(false, [domain])).toEqual(expected);
  });

  it("reports every problem, in order, with readable messages", () => {
    const problems = productionModeChecks({
      allowLocalhost: true,
      trustedDomains: [
        "https://ok.example.com",
        "http://localhost:3000",
        "bad",
        "https://10.1.2.3",
        "http://x.com",
      ],
    });
    expect(problems.map((p) => [p.code, p.domain])).toEqual([
      ["localhost_allowed", undefined],
      ["localhost_domain", "http://localhost:3000"],
      ["non_https_domain", "http://localhost:3000"],
      ["invalid_domain", "bad"],
      ["ip_domain", "https://10.1.2.3"],
      ["non_https_domain", "http://x.com"],
    ]);
    for (const problem of problems) {
      expect(problem.message.length).toBeGreaterThan(20);
      if (problem.domain !== undefined) expect(problem.message).toContain(problem.domain);
    }
  });
});
