/**
 * Deterministic ES256 (ECDSA over NIST P-256) signing keys for access tokens.
 *
 * Why derive instead of generate-and-store: every server process that knows the master secret computes the same key
 * pairs, so any number of processes can sign and verify tokens with no key table, no database read on the hot path and
 * no coordination at start-up. The cost is that the master secret is the one thing to protect: whoever has it can
 * sign tokens for every project. Changing it changes every key (all access tokens fail verification, and clients
 * transparently fetch new ones with their refresh tokens).
 *
 * One key pair per (project, audience kind, generation):
 *   - project: a leaked or misused key of one project cannot sign for another;
 *   - audience kind: "default" (normal users), "restricted" and "anonymous" users sign with different keys, so a
 *     service that only trusts normal users can fetch only the default JWKS and be safe by construction;
 *   - generation: "current" signs, "next" is published alongside it (PROTOCOL.md §5.2 publishes two keys per
 *     audience). Verifiers that cache the JWKS thus already know the next key before anything is signed with it.
 *
 * Derivation, for the private scalar d:
 *
 *   okm = HKDF-SHA256(ikm = master secret, salt = "gatehouse/access-token-key/v1",
 *                     info = JSON ["ES256", projectId, audienceKind, generation], length = 48 bytes)
 *   d   = (okm mod (n − 1)) + 1
 *
 * n is the order of the P-256 group (just under 2^256), and a valid private key is any integer in [1, n − 1].
 * Reducing a 256-bit hash mod n would make values below 2^224 twice as likely as the rest, a distance of 2^-32 from
 * uniform. Taking 64 extra bits (48 bytes = 384 bits) shrinks the distance to about 2^-128: this is the "extra random
 * bits" method of FIPS 186-4 B.4.1 / FIPS 186-5 A.2.1. The JSON array is an unambiguous encoding of the tuple, so two
 * different tuples never give the same HKDF input.
 */

import {
  createECDH,
  createHash,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  type KeyObject,
} from "node:crypto";

export type AudienceKind = "default" | "restricted" | "anonymous";
export type KeyGeneration = "current" | "next";

/** A public key as published in a JWKS: exactly the reference's members (PROTOCOL.md §5.2), no `use`. */
export type PublicSigningJwk = {
  kty: "EC";
  alg: "ES256";
  crv: "P-256";
  kid: string;
  x: string;
  y: string;
};

export type SigningKey = {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: PublicSigningJwk;
};

/** Order of the P-256 base point (SEC 2, §2.4.2). */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const HKDF_SALT = "gatehouse/access-token-key/v1";
const OKM_BYTES = 48;

/** Length of a `kid`: 12 base64url characters = 72 bits of the key's thumbprint. */
export const KID_LENGTH = 12;

export function deriveSigningKey(
  masterSecret: string,
  projectId: string,
  audienceKind: AudienceKind,
  generation: KeyGeneration,
): SigningKey {
  if (typeof masterSecret !== "string" || masterSecret.length === 0) {
    throw new TypeError("Access token keys need a non-empty master secret");
  }
  const info = JSON.stringify(["ES256", projectId, audienceKind, generation]);
  const okm = Buffer.from(hkdfSync("sha256", masterSecret, HKDF_SALT, info, OKM_BYTES));
  const d = (BigInt(`0x${okm.toString("hex")}`) % (P256_ORDER - 1n)) + 1n;
  const dBytes = Buffer.from(d.toString(16).padStart(64, "0"), "hex");

  // Node computes the public point Q = d·G for us. Uncompressed encoding: 0x04 || X (32 bytes) || Y (32 bytes).
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(dBytes);
  const point = ecdh.getPublicKey();
  const x = point.subarray(1, 33).toString("base64url");
  const y = point.subarray(33, 65).toString("base64url");

  const kid = jwkThumbprint(x, y).slice(0, KID_LENGTH);
  const privateKey = createPrivateKey({
    key: { kty: "EC", crv: "P-256", x, y, d: dBytes.toString("base64url") },
    format: "jwk",
  });
  const publicKey = createPublicKey({ key: { kty: "EC", crv: "P-256", x, y }, format: "jwk" });
  return {
    kid,
    privateKey,
    publicKey,
    publicJwk: { kty: "EC", alg: "ES256", crv: "P-256", kid, x, y },
  };
}

/**
 * RFC 7638 JWK thumbprint (SHA-256, base64url) of a P-256 public key: the hash of the JSON object with exactly the
 * required members in lexicographic order and no whitespace. A `kid` that is a prefix of it is stable, public, and
 * checkable by anyone holding the key.
 */
export function jwkThumbprint(x: string, y: string): string {
  const canonical = `{"crv":"P-256","kty":"EC","x":"${x}","y":"${y}"}`;
  return createHash("sha256").update(canonical, "utf8").digest("base64url");
}
