import { describe, expect, it } from "vitest";
import { base32, otpauthUri, totpAt, verifyTotp } from "./totp.ts";

const RFC_SECRET = new TextEncoder().encode("12345678901234567890");

describe("TOTP for the MFA setup", () => {
  it("matches the SHA-1 vectors of RFC 6238 (last six digits)", async () => {
    expect(await totpAt(RFC_SECRET, Math.floor(59 / 30))).toBe("287082");
    expect(await totpAt(RFC_SECRET, Math.floor(1111111109 / 30))).toBe("081804");
    expect(await totpAt(RFC_SECRET, Math.floor(20000000000 / 30))).toBe("353130");
  });

  it("accepts the current step and one either side, nothing further or malformed", async () => {
    const now = 1_700_000_000_000;
    const step = Math.floor(now / 30_000);
    expect(await verifyTotp(RFC_SECRET, await totpAt(RFC_SECRET, step), now)).toBe(true);
    expect(await verifyTotp(RFC_SECRET, await totpAt(RFC_SECRET, step - 1), now)).toBe(true);
    expect(await verifyTotp(RFC_SECRET, await totpAt(RFC_SECRET, step + 1), now)).toBe(true);
    expect(await verifyTotp(RFC_SECRET, await totpAt(RFC_SECRET, step - 3), now)).toBe(false);
    expect(await verifyTotp(RFC_SECRET, "12345", now)).toBe(false);
    expect(await verifyTotp(RFC_SECRET, "abcdef", now)).toBe(false);
  });

  it("writes secrets in RFC 4648 base32 inside the otpauth URI", () => {
    expect(base32(new TextEncoder().encode("foobar"))).toBe("MZXW6YTBOI");
    const uri = new URL(otpauthUri(RFC_SECRET, "Acme Notes", "sam@example.com"));
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.host).toBe("totp");
    expect(decodeURIComponent(uri.pathname)).toBe("/Acme Notes:sam@example.com");
    expect(uri.searchParams.get("secret")).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
    expect(uri.searchParams.get("issuer")).toBe("Acme Notes");
    expect(uri.searchParams.get("digits")).toBe("6");
  });
});
