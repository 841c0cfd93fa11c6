import { describe, expect, it } from "vitest";
import { constantTimeEqual, sha256Bytes, sha256Hex } from "./hash.ts";

describe("sha256Hex", () => {
  it("matches the FIPS 180-2 test vectors", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("hashes the UTF-8 bytes", () => {
    // "é" is c3 a9 in UTF-8.
    expect(sha256Hex("é")).toBe("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c");
    expect(sha256Bytes("é").toString("hex")).toBe(sha256Hex("é"));
    expect(sha256Hex("é")).not.toBe(sha256Hex("e"));
  });
});

describe("constantTimeEqual", () => {
  it("is true exactly for equal strings", () => {
    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    expect(constantTimeEqual("abc", "ABC")).toBe(false);
  });

  it("handles different lengths without throwing", () => {
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
    expect(constantTimeEqual("", "a")).toBe(false);
    expect(constantTimeEqual("a".repeat(10_000), "a")).toBe(false);
  });
});
