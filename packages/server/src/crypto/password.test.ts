import { hash as argon2Hash, parseOptions } from "@node-rs/argon2";
import { hash as bcryptHash } from "@node-rs/bcrypt";
import { describe, expect, it } from "vitest";
import {
  ARGON2ID_PARAMETERS,
  DUMMY_PASSWORD_HASH,
  hashPassword,
  isSupportedPasswordHash,
  verifyPassword,
  verifyPasswordAgainstDummy,
} from "./password.ts";

describe("hashPassword / verifyPassword with Argon2id", () => {
  it("uses Argon2id with the OWASP parameters", async () => {
    const hash = await hashPassword("correct horse battery staple");
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(ARGON2ID_PARAMETERS).toEqual({ memoryCost: 19456, timeCost: 2, parallelism: 1, outputLen: 32 });
    expect(isSupportedPasswordHash(hash)).toBe(true);
  });

  it("verifies the right password and refuses a wrong one", async () => {
    const hash = await hashPassword("correct horse battery staple");
    expect(await verifyPassword(hash, "correct horse battery staple")).toEqual({
      valid: true,
      needsRehash: false,
    });
    expect(await verifyPassword(hash, "correct horse battery stapler")).toEqual({
      valid: false,
      needsRehash: false,
    });
    expect(await verifyPassword(hash, "")).toEqual({ valid: false, needsRehash: false });
  });

  it("salts: the same password hashes differently each time", async () => {
    expect(await hashPassword("pw")).not.toBe(await hashPassword("pw"));
  });

  it("does not normalise: exact characters matter", async () => {
    const hash = await hashPassword("Passw\u00f6rd");
    expect((await verifyPassword(hash, "Passwo\u0308rd")).valid).toBe(false);
    expect((await verifyPassword(hash, " Passw\u00f6rd")).valid).toBe(false);
  });

  it("asks for a rehash when the stored parameters are weaker", async () => {
    const weak = await argon2Hash("pw", { memoryCost: 4096, timeCost: 1, parallelism: 1, algorithm: 2 });
    expect(weak).toContain("m=4096,t=1,p=1");
    expect(await verifyPassword(weak, "pw")).toEqual({ valid: true, needsRehash: true });
    expect(await verifyPassword(weak, "wrong")).toEqual({ valid: false, needsRehash: false });
    const lessMemory = await argon2Hash("pw", {
      memoryCost: 8192,
      timeCost: 2,
      parallelism: 1,
      algorithm: 2,
    });
    expect(await verifyPassword(lessMemory, "pw")).toEqual({ valid: true, needsRehash: true });
    const fewerPasses = await argon2Hash("pw", {
      memoryCost: 19_456,
      timeCost: 1,
      parallelism: 1,
      algorithm: 2,
    });
    expect(await verifyPassword(fewerPasses, "pw")).toEqual({ valid: true, needsRehash: true });
  });

  it("keeps stronger parameters without a rehash", async () => {
    const strong = await argon2Hash("pw", { memoryCost: 24_576, timeCost: 3, parallelism: 1, algorithm: 2 });
    expect(await verifyPassword(strong, "pw")).toEqual({ valid: true, needsRehash: false });
  });
});

describe("imported bcrypt hashes", () => {
  it("verify for $2a$, $2b$ and $2y$ and always need a rehash", async () => {
    const hash = await bcryptHash("imported password", { cost: 4 });
    expect(hash.startsWith("$2b$04$")).toBe(true);
    for (const prefix of ["$2a$", "$2b$", "$2y$"]) {
      const variant = prefix + hash.slice(4);
      expect(isSupportedPasswordHash(variant)).toBe(true);
      expect(await verifyPassword(variant, "imported password")).toEqual({ valid: true, needsRehash: true });
      expect(await verifyPassword(variant, "wrong password")).toEqual({ valid: false, needsRehash: false });
    }
  });

  it("refuses bcrypt variants and costs we do not accept", async () => {
    const hash = await bcryptHash("pw", { cost: 4 });
    expect(isSupportedPasswordHash(`$2x$${hash.slice(4)}`)).toBe(false);
    expect(await verifyPassword(`$2x$${hash.slice(4)}`, "pw")).toEqual({ valid: false, needsRehash: false });
    // Cost 31 would be 2^31 rounds per attempt.
    const cost31 = `$2b$31$${hash.slice(7)}`;
    expect(isSupportedPasswordHash(cost31)).toBe(false);
    expect(await verifyPassword(cost31, "pw")).toEqual({ valid: false, needsRehash: false });
  });
});

describe("malformed and unknown hashes", () => {
  const malformed = [
    "",
    "hunter2",
    "$argon2id$garbage",
    "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$",
    // Argon2i and Argon2d are supported (scrypt-hashes.test.ts), but not with 4 GiB either.
    "$argon2i$v=19$m=4194304,t=2,p=1$rsyEjCq7PHyqWsl4utfiLQ$0unXLJw6Xl8MUFCIjHob24Va6jDKK6+P5lZT0qHrtDY",
    "$scrypt$ln=30,r=8,p=1$c2FsdHNhbHRzYWx0$" + "A".repeat(43),
    "$firebase-scrypt$n=14,r=8$c2lnbmVy$Bw==$c2FsdA==$" + "A".repeat(43),
    // 4 GiB of memory per verification: refused rather than attempted.
    "$argon2id$v=19$m=4194304,t=2,p=1$rsyEjCq7PHyqWsl4utfiLQ$0unXLJw6Xl8MUFCIjHob24Va6jDKK6+P5lZT0qHrtDY",
    "$argon2id$v=19$m=19456,t=2,p=1$rsyEjCq7PHyqWsl4utfiLQ$0unXLJw6Xl8MUFCIjHob24Va6jDKK6+P5lZT0qHrtDY$extra",
    "$2b$10$tooshort",
    "$2b$10$" + "a".repeat(54),
    "$6$rounds=5000$saltsalt$abcdefghijklmnopqrstuvwxyz",
    "$1$salt$hash",
    "5f4dcc3b5aa765d61d8327deb882cf99",
  ];

  it("are not supported and never verify, without throwing", async () => {
    for (const hash of malformed) {
      expect(isSupportedPasswordHash(hash), hash).toBe(false);
      expect(await verifyPassword(hash, "password"), hash).toEqual({ valid: false, needsRehash: false });
    }
  });

  it("survive non-string input from untyped callers", async () => {
    expect(isSupportedPasswordHash(null as unknown as string)).toBe(false);
    expect(await verifyPassword(undefined as unknown as string, "pw")).toEqual({
      valid: false,
      needsRehash: false,
    });
    const hash = await hashPassword("pw");
    expect(await verifyPassword(hash, null as unknown as string)).toEqual({
      valid: false,
      needsRehash: false,
    });
  });
});

describe("verifyPasswordAgainstDummy", () => {
  it("returns false, whatever the password", async () => {
    expect(await verifyPasswordAgainstDummy("anything")).toBe(false);
    expect(await verifyPasswordAgainstDummy("")).toBe(false);
  });

  it("uses a hash made with exactly the current parameters, so it costs the same as a real check", () => {
    const options = parseOptions(DUMMY_PASSWORD_HASH);
    expect(options).toMatchObject({
      algorithm: 2, // Argon2id
      version: 1, // 0x13
      memoryCost: ARGON2ID_PARAMETERS.memoryCost,
      timeCost: ARGON2ID_PARAMETERS.timeCost,
      parallelism: ARGON2ID_PARAMETERS.parallelism,
      outputLen: ARGON2ID_PARAMETERS.outputLen,
      saltLen: 16,
    });
    expect(isSupportedPasswordHash(DUMMY_PASSWORD_HASH)).toBe(true);
  });
});
