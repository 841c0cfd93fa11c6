import { scryptSync } from "node:crypto";
import { hash as argon2Hash } from "@node-rs/argon2";
import { describe, expect, it } from "vitest";
import { isSupportedPasswordHash, verifyPassword } from "./password.ts";

// Firebase's published example (firebase/scrypt README): a project's hash parameters and one exported user.
const FIREBASE = {
  signerKey: "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
  saltSeparator: "Bw==",
  rounds: 8,
  memCost: 14,
  salt: "42xEC+ixf3L2lw==",
  hash: "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==",
  password: "user1password",
};
const firebaseHash = (hash = FIREBASE.hash) =>
  `$firebase-scrypt$n=${FIREBASE.memCost},r=${FIREBASE.rounds}$${FIREBASE.signerKey}$${FIREBASE.saltSeparator}$${FIREBASE.salt}$${hash}`;

describe("imported scrypt hashes", () => {
  it("verify Firebase's modified scrypt with the project's parameters, and ask for a rehash", async () => {
    expect(isSupportedPasswordHash(firebaseHash())).toBe(true);
    expect(await verifyPassword(firebaseHash(), FIREBASE.password)).toEqual({
      valid: true,
      needsRehash: true,
    });
    expect(await verifyPassword(firebaseHash(), "user1passwore")).toEqual({
      valid: false,
      needsRehash: false,
    });
    const other = `${FIREBASE.hash.slice(0, 10)}A${FIREBASE.hash.slice(11)}`;
    expect(await verifyPassword(firebaseHash(other), FIREBASE.password)).toEqual({
      valid: false,
      needsRehash: false,
    });
  });

  it("verify plain scrypt in the PHC form", async () => {
    const salt = Buffer.from("sixteen byte salt");
    const key = scryptSync("hunter22", salt, 32, { N: 2 ** 14, r: 8, p: 1 });
    const phc = `$scrypt$ln=14,r=8,p=1$${salt.toString("base64").replace(/=+$/, "")}$${key.toString("base64").replace(/=+$/, "")}`;
    expect(isSupportedPasswordHash(phc)).toBe(true);
    expect(await verifyPassword(phc, "hunter22")).toEqual({ valid: true, needsRehash: true });
    expect(await verifyPassword(phc, "hunter23")).toEqual({ valid: false, needsRehash: false });
  });

  it("refuse scrypt parameters that would cost more than 256 MiB per attempt", () => {
    const salt = Buffer.from("sixteen byte salt").toString("base64");
    expect(isSupportedPasswordHash(`$scrypt$ln=20,r=8,p=1$${salt}$${"A".repeat(43)}`)).toBe(false);
    expect(isSupportedPasswordHash(`$scrypt$ln=17,r=8,p=1$${salt}$${"A".repeat(43)}`)).toBe(true);
  });
});

describe("imported Argon2i and Argon2d hashes", () => {
  it.each([
    [0, "argon2d"],
    [1, "argon2i"],
  ] as const)("verify (algorithm %i, %s) and ask for a rehash to Argon2id", async (algorithm, prefix) => {
    const hash = await argon2Hash("s3cret pass", { algorithm, memoryCost: 19_456, timeCost: 2 });
    expect(hash.startsWith(`$${prefix}$`)).toBe(true);
    expect(isSupportedPasswordHash(hash)).toBe(true);
    expect(await verifyPassword(hash, "s3cret pass")).toEqual({ valid: true, needsRehash: true });
    expect(await verifyPassword(hash, "s3cret pasS")).toEqual({ valid: false, needsRehash: false });
    // The label must match the parameters encoded in the hash.
    const relabelled = hash.replace(`$${prefix}$`, prefix === "argon2i" ? "$argon2d$" : "$argon2i$");
    expect(await verifyPassword(relabelled, "s3cret pass")).toEqual({ valid: false, needsRehash: false });
  });
});
