/**
 * Imported scrypt password hashes, verified as they are and replaced by Argon2id at the next sign-in.
 *
 * Two string forms (both Modular Crypt Format style, base64 with or without padding):
 *
 * - Plain scrypt, the PHC / passlib form: `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>`.
 * - Firebase's modified scrypt, whose export gives a hash and salt per user plus project-wide parameters
 *   (signer key, salt separator, rounds, memory cost): `$firebase-scrypt$n=<mem_cost>,r=<rounds>$<signer key>$<salt
 *   separator>$<salt>$<hash>`. Firebase derives a key with scrypt(password, salt + separator, N = 2^mem_cost, r =
 *   rounds, p = 1, 64 bytes) and stores the project's signer key encrypted with AES-256-CTR (the key's first 32
 *   bytes, a zero IV).
 *
 * Like the rest of crypto/, nothing here throws on bad input: a malformed hash is null or does not verify.
 */
import { createCipheriv, scrypt, timingSafeEqual } from "node:crypto";

/** Verifying costs 128 * r * N bytes; above this an imported hash could stall the server on every attempt. */
const MAX_SCRYPT_MEMORY_BYTES = 256 * 1024 * 1024;
const B64 = "[A-Za-z0-9+/]+={0,2}";

const SCRYPT_PHC = new RegExp(`^\\$scrypt\\$ln=(\\d{1,2}),r=(\\d{1,2}),p=(\\d{1,2})\\$(${B64})\\$(${B64})$`);
const FIREBASE_SCRYPT = new RegExp(
  `^\\$firebase-scrypt\\$n=(\\d{1,2}),r=(\\d{1,2})\\$(${B64})\\$(${B64}|)\\$(${B64})\\$(${B64})$`,
);

type ScryptParams = { N: number; r: number; p: number };

export type ScryptHash =
  | { kind: "scrypt"; params: ScryptParams; salt: Buffer; hash: Buffer }
  | {
      kind: "firebase-scrypt";
      params: ScryptParams;
      signerKey: Buffer;
      saltSeparator: Buffer;
      salt: Buffer;
      hash: Buffer;
    };

function withinLimits({ N, r, p }: ScryptParams): boolean {
  return N >= 2 && r >= 1 && p >= 1 && p <= 16 && 128 * r * N <= MAX_SCRYPT_MEMORY_BYTES;
}

/** The parts of a supported scrypt hash, or null. */
export function parseScryptHash(text: string): ScryptHash | null {
  const plain = SCRYPT_PHC.exec(text);
  if (plain) {
    const params = { N: 2 ** Number(plain[1]), r: Number(plain[2]), p: Number(plain[3]) };
    const salt = Buffer.from(plain[4]!, "base64");
    const hash = Buffer.from(plain[5]!, "base64");
    if (!withinLimits(params) || salt.length < 8 || hash.length < 16 || hash.length > 128) return null;
    return { kind: "scrypt", params, salt, hash };
  }
  const firebase = FIREBASE_SCRYPT.exec(text);
  if (firebase) {
    const params = { N: 2 ** Number(firebase[1]), r: Number(firebase[2]), p: 1 };
    const signerKey = Buffer.from(firebase[3]!, "base64");
    const hash = Buffer.from(firebase[6]!, "base64");
    if (!withinLimits(params) || signerKey.length === 0 || hash.length !== signerKey.length) return null;
    return {
      kind: "firebase-scrypt",
      params,
      signerKey,
      saltSeparator: Buffer.from(firebase[4]!, "base64"),
      salt: Buffer.from(firebase[5]!, "base64"),
      hash,
    };
  }
  return null;
}

function deriveKey(password: string, salt: Buffer, length: number, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      Buffer.from(password, "utf8"),
      salt,
      length,
      { ...params, maxmem: MAX_SCRYPT_MEMORY_BYTES + 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** Whether `password` produced the parsed hash. */
export async function verifyScryptHash(parsed: ScryptHash, password: string): Promise<boolean> {
  if (parsed.kind === "scrypt") {
    const derived = await deriveKey(password, parsed.salt, parsed.hash.length, parsed.params);
    return timingSafeEqual(derived, parsed.hash);
  }
  const derived = await deriveKey(
    password,
    Buffer.concat([parsed.salt, parsed.saltSeparator]),
    64,
    parsed.params,
  );
  const cipher = createCipheriv("aes-256-ctr", derived.subarray(0, 32), Buffer.alloc(16, 0));
  const computed = Buffer.concat([cipher.update(parsed.signerKey), cipher.final()]);
  return computed.length === parsed.hash.length && timingSafeEqual(computed, parsed.hash);
}
