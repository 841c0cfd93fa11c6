import { createPublicKey, sign, verify } from "node:crypto";
import { calculateJwkThumbprint } from "jose";
import { describe, expect, it } from "vitest";
import { deriveSigningKey, jwkThumbprint, KID_LENGTH } from "./signing-keys.ts";

const SECRET = "test-master-secret-0123456789abcdefghijklmnop";

describe("deriveSigningKey", () => {
  it("is deterministic", () => {
    const a = deriveSigningKey(SECRET, "p1", "default", "current");
    const b = deriveSigningKey(SECRET, "p1", "default", "current");
    expect(a.publicJwk).toEqual(b.publicJwk);
    expect(a.privateKey.export({ format: "jwk" })).toEqual(b.privateKey.export({ format: "jwk" }));
  });

  it("gives a different key for every secret, project, audience kind and generation", () => {
    const kids = new Set(
      [
        deriveSigningKey(SECRET, "p1", "default", "current"),
        deriveSigningKey(`${SECRET}x`, "p1", "default", "current"),
        deriveSigningKey(SECRET, "p2", "default", "current"),
        deriveSigningKey(SECRET, "p1", "restricted", "current"),
        deriveSigningKey(SECRET, "p1", "anonymous", "current"),
        deriveSigningKey(SECRET, "p1", "default", "next"),
      ].map((key) => key.kid),
    );
    expect(kids.size).toBe(6);
  });

  it("makes a valid P-256 key pair whose published JWK verifies its signatures", () => {
    const key = deriveSigningKey(SECRET, "p1", "default", "current");
    expect(key.privateKey.asymmetricKeyType).toBe("ec");
    expect(key.privateKey.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    const { kid: _kid, alg: _alg, ...jwk } = key.publicJwk;
    const published = createPublicKey({ key: jwk, format: "jwk" });
    const signature = sign("sha256", Buffer.from("message"), key.privateKey);
    expect(verify("sha256", Buffer.from("message"), published, signature)).toBe(true);
    expect(verify("sha256", Buffer.from("other"), published, signature)).toBe(false);
  });

  it("uses the first 12 characters of the RFC 7638 thumbprint as kid", async () => {
    const key = deriveSigningKey(SECRET, "p1", "anonymous", "next");
    expect(KID_LENGTH).toBe(12);
    expect(key.kid).toMatch(/^[A-Za-z0-9_-]{12}$/);
    const full = await calculateJwkThumbprint({
      kty: "EC",
      crv: "P-256",
      x: key.publicJwk.x,
      y: key.publicJwk.y,
    });
    expect(jwkThumbprint(key.publicJwk.x, key.publicJwk.y)).toBe(full);
    expect(key.kid).toBe(full.slice(0, 12));
  });

  it("needs a master secret", () => {
    expect(() => deriveSigningKey("", "p1", "default", "current")).toThrow(TypeError);
  });
});
