import { randomBytes } from "node:crypto";
import { crc32 as zlibCrc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { crc32, crc32Hex } from "./crc32.ts";

describe("crc32", () => {
  it("matches the CRC-32/IEEE check values", () => {
    expect(crc32Hex("123456789")).toBe("cbf43926");
    expect(crc32Hex("")).toBe("00000000");
    expect(crc32Hex("The quick brown fox jumps over the lazy dog")).toBe("414fa339");
  });

  it("pads to 8 hex characters", () => {
    // Find an input whose CRC has a leading zero nibble and check the padding.
    let input = 0;
    while (crc32(new TextEncoder().encode(String(input))) >= 0x10000000) input++;
    expect(crc32Hex(String(input))).toMatch(/^0[0-9a-f]{7}$/);
  });

  it("agrees with zlib on random data", () => {
    for (let i = 0; i < 50; i++) {
      const bytes = randomBytes(i * 7);
      expect(crc32(bytes)).toBe(zlibCrc32(bytes));
    }
  });
});
