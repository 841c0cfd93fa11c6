import { describe, expect, it } from "vitest";
import {
  CROCKFORD_ALPHABET,
  generateSecureToken,
  randomCrockford,
  randomHex,
  randomUuid,
  SECURE_TOKEN_LENGTH,
} from "./random.ts";

describe("randomCrockford", () => {
  it("uses the lowercase Crockford alphabet (no i, l, o, u)", () => {
    expect(CROCKFORD_ALPHABET).toBe("0123456789abcdefghjkmnpqrstvwxyz");
    expect(new Set(CROCKFORD_ALPHABET).size).toBe(32);
  });

  it("returns exactly the requested length, only alphabet characters", () => {
    for (const length of [0, 1, 6, 45, 100]) {
      const value = randomCrockford(length);
      expect(value).toHaveLength(length);
      expect(value).toMatch(/^[0-9a-hjkmnp-tv-z]*$/);
    }
  });

  it("handles lengths beyond one getRandomValues call (65,536 bytes)", () => {
    expect(randomCrockford(70_000)).toHaveLength(70_000);
  });

  it("rejects negative and fractional lengths", () => {
    expect(() => randomCrockford(-1)).toThrow(RangeError);
    expect(() => randomCrockford(1.5)).toThrow(RangeError);
  });

  it("shows no obvious bias: every character appears, each near 1/32 of the time", () => {
    const sample = randomCrockford(10_000);
    const counts = new Map<string, number>();
    for (const char of sample) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(32);
    // Expected 312.5 each, standard deviation about 17.4; ±120 is about 7 standard deviations.
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(312.5 - 120);
      expect(count).toBeLessThan(312.5 + 120);
    }
  });
});

describe("generateSecureToken", () => {
  it("is 45 Crockford characters and never repeats", () => {
    expect(SECURE_TOKEN_LENGTH).toBe(45);
    const tokens = new Set(Array.from({ length: 1000 }, () => generateSecureToken()));
    expect(tokens.size).toBe(1000);
    for (const token of tokens) expect(token).toMatch(/^[0-9a-hjkmnp-tv-z]{45}$/);
  });
});

describe("randomHex and randomUuid", () => {
  it("randomHex gives two lowercase hex characters per byte", () => {
    expect(randomHex(16)).toMatch(/^[0-9a-f]{32}$/);
    expect(randomHex(0)).toBe("");
    expect(randomHex(16)).not.toBe(randomHex(16));
    expect(() => randomHex(-1)).toThrow(RangeError);
  });

  it("randomUuid gives version 4 UUIDs", () => {
    expect(randomUuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(randomUuid()).not.toBe(randomUuid());
  });
});
