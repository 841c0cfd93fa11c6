import { createHmac, sign } from "node:crypto";
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  SignJWT,
} from "jose";
import { describe, expect, it } from "vitest";
import { ACCESS_TOKEN_CLAIMS } from "../testing/access-token-claims.ts";
import { type AccessTokenClaims, accessTokenIssuer } from "./access-token-claims.ts";
import { createTokenKeyring, type SignAccessTokenInput, type TokenKeyring } from "./access-tokens.ts";
import { deriveSigningKey } from "./signing-keys.ts";

const SECRET = "test-master-secret-0123456789abcdefghijklmnop";
const BASE = "http://localhost:8102";
const PROJECT = "6f1c7a3e-2b4d-4e8f-9a0b-1c2d3e4f5a6b";
const OTHER_PROJECT = "internal";
const USER = "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a";
const SESSION = "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d";
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0); // a whole second

function keyringAt(millis: number, masterSecret = SECRET): TokenKeyring {
  return createTokenKeyring({ masterSecret, issuerBaseUrl: BASE, now: () => millis });
}

const normalUser: SignAccessTokenInput = {
  projectId: PROJECT,
  branchId: "main",
  userId: USER,
  refreshTokenId: SESSION,
  name: "Ada Lovelace",
  email: "ada@example.com",
  emailVerified: true,
  selectedTeamId: null,
  signedUpAtSeconds: T0 / 1000 - 86_400,
  isAnonymous: false,
  isRestricted: false,
  restrictedReason: null,
  requiresTotpMfa: false,
  expiresInSeconds: 600,
};

const anonymousUser: SignAccessTokenInput = {
  ...normalUser,
  name: null,
  email: null,
  emailVerified: false,
  isAnonymous: true,
  isRestricted: true,
  restrictedReason: { type: "anonymous" },
};

const restrictedUser: SignAccessTokenInput = {
  ...normalUser,
  emailVerified: false,
  isRestricted: true,
  restrictedReason: { type: "email_not_verified" },
};

const allowNone = { allowAnonymous: false, allowRestricted: false };
const allowAll = { allowAnonymous: true, allowRestricted: true };

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Signs arbitrary claims with the real derived key of (project, kind, generation), to test claim checks. */
async function forge(
  claims: Record<string, unknown>,
  options: {
    project?: string;
    kind?: "default" | "restricted" | "anonymous";
    generation?: "current" | "next";
    secret?: string;
  } = {},
): Promise<string> {
  const key = deriveSigningKey(
    options.secret ?? SECRET,
    options.project ?? PROJECT,
    options.kind ?? "default",
    options.generation ?? "current",
  );
  return new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: key.kid }).sign(key.privateKey);
}

async function validClaims(input = normalUser): Promise<AccessTokenClaims> {
  return decodeJwt(await keyringAt(T0).signAccessToken(input)) as unknown as AccessTokenClaims;
}

describe("signAccessToken", () => {
  it("produces header {alg, kid} and exactly the claims of PROTOCOL.md §5.1", async () => {
    const token = await keyringAt(T0).signAccessToken(normalUser);
    const header = decodeProtectedHeader(token);
    expect(Object.keys(header).sort()).toEqual(["alg", "kid"]);
    expect(header.alg).toBe("ES256");
    expect(header.kid).toMatch(/^[A-Za-z0-9_-]{12}$/);

    const claims = decodeJwt(token);
    expect(Object.keys(claims).sort()).toEqual([...ACCESS_TOKEN_CLAIMS].sort());
    expect(claims).toEqual({
      sub: USER,
      iat: T0 / 1000,
      exp: T0 / 1000 + 600,
      iss: `${BASE}/api/v1/projects/${PROJECT}`,
      aud: PROJECT,
      project_id: PROJECT,
      branch_id: "main",
      refresh_token_id: SESSION,
      role: "authenticated",
      name: "Ada Lovelace",
      email: "ada@example.com",
      email_verified: true,
      selected_team_id: null,
      signed_up_at: T0 / 1000 - 86_400,
      is_anonymous: false,
      is_restricted: false,
      restricted_reason: null,
      requires_totp_mfa: false,
    });
  });

  it("uses the anonymous and restricted issuers and audiences", async () => {
    const anon = decodeJwt(await keyringAt(T0).signAccessToken(anonymousUser));
    expect(anon.iss).toBe(`${BASE}/api/v1/projects-anonymous-users/${PROJECT}`);
    expect(anon.aud).toBe(`${PROJECT}:anon`);
    expect(anon).toMatchObject({
      is_anonymous: true,
      is_restricted: true,
      restricted_reason: { type: "anonymous" },
    });

    const restricted = decodeJwt(await keyringAt(T0).signAccessToken(restrictedUser));
    expect(restricted.iss).toBe(`${BASE}/api/v1/projects-restricted-users/${PROJECT}`);
    expect(restricted.aud).toBe(`${PROJECT}:restricted`);
  });

  it("builds the issuer with new URL, dropping any path of the base URL", () => {
    expect(accessTokenIssuer("https://auth.example.com/some/path/", "p1", "default")).toBe(
      "https://auth.example.com/api/v1/projects/p1",
    );
  });

  it("refuses inconsistent input", async () => {
    const keyring = keyringAt(T0);
    await expect(keyring.signAccessToken({ ...anonymousUser, isRestricted: false })).rejects.toThrow(
      TypeError,
    );
    await expect(
      keyring.signAccessToken({ ...normalUser, restrictedReason: { type: "anonymous" } }),
    ).rejects.toThrow(TypeError);
    await expect(keyring.signAccessToken({ ...normalUser, projectId: "../evil" })).rejects.toThrow(TypeError);
    await expect(keyring.signAccessToken({ ...normalUser, expiresInSeconds: 0 })).rejects.toThrow(RangeError);
  });
});

describe("verifyAccessToken", () => {
  it("accepts its own tokens and returns exactly the claims", async () => {
    const keyring = keyringAt(T0);
    const token = await keyring.signAccessToken(normalUser);
    const result = await keyring.verifyAccessToken(token, allowNone);
    expect(result).toEqual({ ok: true, claims: decodeJwt(token), audienceKind: "default" });
  });

  it("is independently verifiable with jose against the published JWKS", async () => {
    const keyring = keyringAt(T0);
    const token = await keyring.signAccessToken(normalUser);
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(keyring.jwks(PROJECT)), {
      issuer: `${BASE}/api/v1/projects/${PROJECT}`,
      audience: PROJECT,
      algorithms: ["ES256"],
      currentDate: new Date(T0),
    });
    expect(payload.sub).toBe(USER);
    expect(protectedHeader.kid).toBe(keyring.jwks(PROJECT).keys[0]?.kid);

    // Anonymous tokens are signed with keys that only the include_anonymous set publishes.
    const anon = await keyring.signAccessToken(anonymousUser);
    await expect(jwtVerify(anon, createLocalJWKSet(keyring.jwks(PROJECT)))).rejects.toBeInstanceOf(
      errors.JWKSNoMatchingKey,
    );
    const verified = await jwtVerify(
      anon,
      createLocalJWKSet(keyring.jwks(PROJECT, { includeAnonymous: true })),
      {
        issuer: `${BASE}/api/v1/projects-anonymous-users/${PROJECT}`,
        audience: `${PROJECT}:anon`,
        currentDate: new Date(T0),
      },
    );
    expect(verified.payload.is_anonymous).toBe(true);
  });

  it("accepts tokens signed with the published next key", async () => {
    const token = await forge(await validClaims(), { generation: "next" });
    expect((await keyringAt(T0).verifyAccessToken(token, allowNone)).ok).toBe(true);
  });

  it("accepts legacy camelCase refreshTokenId and branchId and returns snake_case", async () => {
    const { refresh_token_id, branch_id, ...rest } = await validClaims();
    const token = await forge({ ...rest, refreshTokenId: refresh_token_id, branchId: branch_id });
    const result = await keyringAt(T0).verifyAccessToken(token, allowNone);
    expect(result.ok && result.claims).toEqual(await validClaims());
  });

  it("rejects a wrong issuer, audience, branch or flag combination, even with a valid signature", async () => {
    const claims = await validClaims();
    const keyring = keyringAt(T0);
    const bad: Record<string, unknown>[] = [
      { ...claims, iss: `https://evil.example.com/api/v1/projects/${PROJECT}` },
      { ...claims, iss: `${BASE}/api/v1/projects-restricted-users/${PROJECT}` },
      { ...claims, aud: `${PROJECT}:restricted` },
      { ...claims, aud: [PROJECT] },
      { ...claims, project_id: OTHER_PROJECT },
      { ...claims, branch_id: "dev" },
      { ...claims, is_anonymous: true },
      { ...claims, is_restricted: true, restricted_reason: { type: "email_not_verified" } },
      { ...claims, restricted_reason: { type: "anonymous" } },
      { ...claims, role: "admin" },
      { ...claims, exp: undefined },
      { ...claims, name: undefined },
      { ...claims, email_verified: "true" },
    ];
    for (const claimSet of bad) {
      const result = await keyring.verifyAccessToken(await forge(claimSet), allowAll);
      expect(result, JSON.stringify(claimSet)).toMatchObject({ ok: false, reason: "unparsable" });
    }
  });

  it("rejects a token whose audience names another project than the key that signed it", async () => {
    const claims = await validClaims();
    // Claims of PROJECT, signed with OTHER_PROJECT's key (its own kid):
    const otherKey = await forge(claims, { project: OTHER_PROJECT });
    expect(await keyringAt(T0).verifyAccessToken(otherKey, allowAll)).toMatchObject({ reason: "unparsable" });
    // Claims of OTHER_PROJECT signed with PROJECT's key:
    const other = await validClaims({ ...normalUser, projectId: OTHER_PROJECT });
    expect(await keyringAt(T0).verifyAccessToken(await forge(other), allowAll)).toMatchObject({
      reason: "unparsable",
    });
    // But OTHER_PROJECT's own tokens are fine.
    const own = await keyringAt(T0).signAccessToken({ ...normalUser, projectId: OTHER_PROJECT });
    expect((await keyringAt(T0).verifyAccessToken(own, allowNone)).ok).toBe(true);
  });

  it("rejects an anonymous-kind token signed with the default key, and the reverse", async () => {
    const anonClaims = await validClaims(anonymousUser);
    expect(await keyringAt(T0).verifyAccessToken(await forge(anonClaims), allowAll)).toMatchObject({
      reason: "unparsable",
    });
    const normalClaims = await validClaims();
    expect(
      await keyringAt(T0).verifyAccessToken(await forge(normalClaims, { kind: "anonymous" }), allowAll),
    ).toMatchObject({ reason: "unparsable" });
  });

  it("rejects a tampered payload and reports the (unverified) ids", async () => {
    const token = await keyringAt(T0).signAccessToken(normalUser);
    const [header, payload, signature] = token.split(".");
    const changed = { ...JSON.parse(Buffer.from(payload!, "base64url").toString()), name: "Mallory" };
    const tampered = `${header}.${b64(changed)}.${signature}`;
    expect(await keyringAt(T0).verifyAccessToken(tampered, allowAll)).toEqual({
      ok: false,
      reason: "unparsable",
      decoded: { projectId: PROJECT, userId: USER, refreshTokenId: SESSION },
      // Its issuer is ours and its signature fails, as for a token from an instance with another secret.
      mismatch: expect.stringContaining("GATEHOUSE_SECRET"),
    });
  });

  it("rejects alg none and the HS256-with-the-public-key confusion", async () => {
    const keyring = keyringAt(T0);
    const token = await keyring.signAccessToken(normalUser);
    const [, payload, signature] = token.split(".");
    const jwk = keyring.jwks(PROJECT).keys[0]!;

    expect(await keyring.verifyAccessToken(`${b64({ alg: "none" })}.${payload}.`, allowAll)).toMatchObject({
      reason: "unparsable",
    });
    expect(
      await keyring.verifyAccessToken(
        `${b64({ alg: "none", kid: jwk.kid })}.${payload}.${signature}`,
        allowAll,
      ),
    ).toMatchObject({ reason: "unparsable" });

    const publicKeyForms = [
      JSON.stringify(jwk),
      JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }),
      deriveSigningKey(SECRET, PROJECT, "default", "current").publicKey.export({
        type: "spki",
        format: "pem",
      }),
    ];
    for (const secret of publicKeyForms) {
      const input = `${b64({ alg: "HS256", kid: jwk.kid })}.${payload}`;
      const mac = createHmac("sha256", secret).update(input).digest("base64url");
      expect(await keyring.verifyAccessToken(`${input}.${mac}`, allowAll)).toMatchObject({
        reason: "unparsable",
      });
    }
  });

  it("rejects an unknown kid", async () => {
    const token = await keyringAt(T0).signAccessToken(normalUser);
    const [, payload, signature] = token.split(".");
    const other = `${b64({ alg: "ES256", kid: "AAAAAAAAAAAA" })}.${payload}.${signature}`;
    expect(await keyringAt(T0).verifyAccessToken(other, allowAll)).toMatchObject({ reason: "unparsable" });
  });

  it("reports an expired token with its expiry time and ids", async () => {
    const token = await keyringAt(T0).signAccessToken(normalUser);
    const expected = {
      ok: false,
      reason: "expired",
      expiredAtMillis: T0 + 600_000,
      decoded: { projectId: PROJECT, userId: USER, refreshTokenId: SESSION },
    };
    expect(await keyringAt(T0 + 600_000).verifyAccessToken(token, allowNone)).toEqual(expected);
    expect(await keyringAt(T0 + 3_600_000).verifyAccessToken(token, allowNone)).toEqual(expected);
    expect((await keyringAt(T0 + 599_000).verifyAccessToken(token, allowNone)).ok).toBe(true);
  });

  it("does not report an expired token with a bad signature as expired", async () => {
    const token = await keyringAt(T0).signAccessToken(normalUser);
    const forged = await forge(decodeJwt(token), { secret: "another-secret-0123456789abcdefghijkl" });
    expect(await keyringAt(T0 + 3_600_000).verifyAccessToken(forged, allowNone)).toMatchObject({
      reason: "unparsable",
    });
  });

  it("allows 30 s of clock skew for iat and nbf, not more", async () => {
    const fromTheFuture = await keyringAt(T0 + 20_000).signAccessToken(normalUser);
    expect((await keyringAt(T0).verifyAccessToken(fromTheFuture, allowNone)).ok).toBe(true);
    const tooFar = await keyringAt(T0 + 60_000).signAccessToken(normalUser);
    expect(await keyringAt(T0).verifyAccessToken(tooFar, allowNone)).toMatchObject({ reason: "unparsable" });
    const nbf = await forge({ ...(await validClaims()), nbf: T0 / 1000 + 120 });
    expect(await keyringAt(T0).verifyAccessToken(nbf, allowNone)).toMatchObject({ reason: "unparsable" });
  });

  it("refuses anonymous tokens unless allowed", async () => {
    const keyring = keyringAt(T0);
    const token = await keyring.signAccessToken(anonymousUser);
    expect(await keyring.verifyAccessToken(token, allowNone)).toMatchObject({
      ok: false,
      reason: "anonymous_not_allowed",
      decoded: { userId: USER },
    });
    expect(
      await keyring.verifyAccessToken(token, { allowAnonymous: false, allowRestricted: true }),
    ).toMatchObject({
      reason: "anonymous_not_allowed",
    });
    const result = await keyring.verifyAccessToken(token, { allowAnonymous: true, allowRestricted: false });
    expect(result).toMatchObject({ ok: true, audienceKind: "anonymous" });
  });

  it("refuses restricted tokens unless allowed (allow-anonymous implies allow-restricted)", async () => {
    const keyring = keyringAt(T0);
    const token = await keyring.signAccessToken(restrictedUser);
    expect(await keyring.verifyAccessToken(token, allowNone)).toMatchObject({
      ok: false,
      reason: "restricted_not_allowed",
      restrictedReason: { type: "email_not_verified" },
    });
    expect(
      await keyring.verifyAccessToken(token, { allowAnonymous: false, allowRestricted: true }),
    ).toMatchObject({
      ok: true,
      audienceKind: "restricted",
    });
    expect(
      (await keyring.verifyAccessToken(token, { allowAnonymous: true, allowRestricted: false })).ok,
    ).toBe(true);
  });

  it("never throws on garbage", async () => {
    const keyring = keyringAt(T0);
    const nothing = { projectId: null, userId: null, refreshTokenId: null };
    const garbage: unknown[] = [
      "",
      "abc",
      "a.b.c",
      "a.b",
      "....",
      `${b64({ alg: "ES256" })}.${b64([1, 2])}.AAAA`,
      `${b64({ alg: "ES256", kid: "x" })}.bm90IGpzb24.AAAA`,
      "x".repeat(100_000),
      null,
      42,
      { token: "x" },
    ];
    for (const token of garbage) {
      expect(await keyring.verifyAccessToken(token as string, allowAll)).toEqual({
        ok: false,
        reason: "unparsable",
        decoded: nothing,
      });
    }
  });
});

describe("verified tokens remembered per process", () => {
  /** One keyring (hence one cache of verified tokens) whose clock the test moves. */
  function keyringWithClock(options: { maxVerifiedTokens?: number } = {}) {
    const clock = { millis: T0 };
    const keyring = createTokenKeyring({
      masterSecret: SECRET,
      issuerBaseUrl: BASE,
      now: () => clock.millis,
      ...options,
    });
    return { clock, keyring };
  }

  it("still expires a token it has verified before", async () => {
    const { clock, keyring } = keyringWithClock();
    const token = await keyring.signAccessToken(normalUser);
    expect((await keyring.verifyAccessToken(token, allowNone)).ok).toBe(true);
    clock.millis = T0 + 600_000;
    expect(await keyring.verifyAccessToken(token, allowNone)).toEqual({
      ok: false,
      reason: "expired",
      expiredAtMillis: T0 + 600_000,
      decoded: { projectId: PROJECT, userId: USER, refreshTokenId: SESSION },
    });
  });

  it("asks again, per request, whether anonymous and restricted users are welcome", async () => {
    const { keyring } = keyringWithClock();
    const anonymous = await keyring.signAccessToken(anonymousUser);
    const restricted = await keyring.signAccessToken(restrictedUser);
    expect((await keyring.verifyAccessToken(anonymous, allowAll)).ok).toBe(true);
    expect((await keyring.verifyAccessToken(restricted, allowAll)).ok).toBe(true);
    expect(await keyring.verifyAccessToken(anonymous, allowNone)).toMatchObject({
      reason: "anonymous_not_allowed",
    });
    expect(await keyring.verifyAccessToken(restricted, allowNone)).toMatchObject({
      reason: "restricted_not_allowed",
    });
  });

  it("checks the nbf of a remembered token against the clock of each use", async () => {
    const { clock, keyring } = keyringWithClock();
    const token = await forge({ ...(await validClaims()), nbf: T0 / 1000 + 120 });
    expect(await keyring.verifyAccessToken(token, allowNone)).toMatchObject({ reason: "unparsable" });
    clock.millis = T0 + 100_000;
    expect((await keyring.verifyAccessToken(token, allowNone)).ok).toBe(true);
    clock.millis = T0;
    expect(await keyring.verifyAccessToken(token, allowNone)).toMatchObject({ reason: "unparsable" });
  });

  it("does not take a token that differs from a remembered one in any part", async () => {
    const { keyring } = keyringWithClock();
    const token = await keyring.signAccessToken(normalUser);
    expect((await keyring.verifyAccessToken(token, allowNone)).ok).toBe(true);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const flipped = (part: string) => {
      const bytes = Buffer.from(part, "base64url");
      bytes[bytes.length - 1]! ^= 1;
      return bytes.toString("base64url");
    };
    const variants = [
      `${header}.${payload}.${flipped(signature)}`,
      `${header}.${b64({ ...decodeJwt(token), name: "Mallory" })}.${signature}`,
      `${b64({ ...decodeProtectedHeader(token), typ: "JWT" })}.${payload}.${signature}`,
      `${header}.${payload}.${signature.slice(0, -2)}`,
    ];
    for (const variant of variants) {
      expect(await keyring.verifyAccessToken(variant, allowNone)).toMatchObject({ reason: "unparsable" });
    }
  });

  it("refuses header parameters it does not write, even with a valid signature", async () => {
    const key = deriveSigningKey(SECRET, PROJECT, "default", "current");
    const claims = await validClaims();
    // Signed by hand: jose will not write a `crit` or `b64` it does not understand.
    const withHeader = async (header: Record<string, unknown>) => {
      const input = `${b64({ alg: "ES256", kid: key.kid, ...header })}.${b64(claims)}`;
      const signature = sign("sha256", Buffer.from(input), {
        key: key.privateKey,
        dsaEncoding: "ieee-p1363",
      });
      return `${input}.${signature.toString("base64url")}`;
    };
    const { keyring } = keyringWithClock();
    expect((await keyring.verifyAccessToken(await withHeader({ typ: "JWT" }), allowNone)).ok).toBe(true);
    for (const extra of [
      { crit: ["exp"], exp: 1 },
      { jku: "https://attacker.example/jwks" },
      { b64: false },
    ]) {
      expect(await keyring.verifyAccessToken(await withHeader(extra), allowNone)).toMatchObject({
        reason: "unparsable",
      });
    }
  });

  it("keeps verifying when more tokens pass than it remembers", async () => {
    const { keyring } = keyringWithClock({ maxVerifiedTokens: 2 });
    const tokens = await Promise.all(
      ["a", "b", "c"].map((name) => keyring.signAccessToken({ ...normalUser, name })),
    );
    for (let round = 0; round < 2; round++) {
      for (const token of tokens) {
        const result = await keyring.verifyAccessToken(token, allowNone);
        expect(result.ok && result.claims.name).toBe(decodeJwt(token).name);
      }
    }
  });
});

describe("keys and JWKS", () => {
  it("publishes 2, 4 or 6 distinct keys with exactly the public fields", async () => {
    const keyring = keyringAt(T0);
    expect(keyring.jwks(PROJECT).keys).toHaveLength(2);
    expect(keyring.jwks(PROJECT, { includeRestricted: true }).keys).toHaveLength(4);
    expect(keyring.jwks(PROJECT, { includeAnonymous: true }).keys).toHaveLength(6);
    const all = keyring.jwks(PROJECT, { includeRestricted: true, includeAnonymous: true }).keys;
    expect(all).toHaveLength(6);
    expect(new Set(all.map((key) => key.kid)).size).toBe(6);
    for (const key of all) {
      expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "x", "y"]);
      expect(key).toMatchObject({ kty: "EC", alg: "ES256", crv: "P-256" });
      expect(Buffer.from(key.x, "base64url")).toHaveLength(32);
      expect(Buffer.from(key.y, "base64url")).toHaveLength(32);
      // kid = first 12 characters of the RFC 7638 thumbprint, computed here by jose.
      expect(key.kid).toBe((await calculateJwkThumbprint(key, "sha256")).slice(0, 12));
    }
    // The default set is a prefix of the larger ones.
    expect(all.slice(0, 2)).toEqual(keyring.jwks(PROJECT).keys);
  });

  it("gives every project its own keys", () => {
    const keyring = keyringAt(T0);
    const a = keyring.jwks(PROJECT).keys.map((key) => key.kid);
    const b = keyring.jwks(OTHER_PROJECT).keys.map((key) => key.kid);
    expect(a.filter((kid) => b.includes(kid))).toEqual([]);
  });

  it("two keyrings with the same secret agree; a different secret does not", async () => {
    const first = keyringAt(T0);
    const second = keyringAt(T0);
    const stranger = keyringAt(T0, "a-completely-different-master-secret-xyz");
    expect(second.jwks(PROJECT, { includeAnonymous: true })).toEqual(
      first.jwks(PROJECT, { includeAnonymous: true }),
    );
    expect(stranger.jwks(PROJECT).keys[0]?.kid).not.toBe(first.jwks(PROJECT).keys[0]?.kid);

    const token = await first.signAccessToken(normalUser);
    expect((await second.verifyAccessToken(token, allowNone)).ok).toBe(true);
    expect(await stranger.verifyAccessToken(token, allowNone)).toMatchObject({
      ok: false,
      reason: "unparsable",
    });
  });

  it("keeps working when the key cache is smaller than the number of projects", async () => {
    const keyring = createTokenKeyring({
      masterSecret: SECRET,
      issuerBaseUrl: BASE,
      maxCachedProjects: 1,
      now: () => T0,
    });
    const a = await keyring.signAccessToken(normalUser);
    const b = await keyring.signAccessToken({ ...normalUser, projectId: OTHER_PROJECT });
    expect((await keyring.verifyAccessToken(a, allowNone)).ok).toBe(true);
    expect((await keyring.verifyAccessToken(b, allowNone)).ok).toBe(true);
    expect((await keyring.verifyAccessToken(a, allowNone)).ok).toBe(true);
  });

  it("refuses a bad project id for the JWKS and a bad base URL or secret for the keyring", () => {
    expect(() => keyringAt(T0).jwks("a/b")).toThrow(TypeError);
    expect(() => createTokenKeyring({ masterSecret: SECRET, issuerBaseUrl: "not a url" })).toThrow();
    expect(() => createTokenKeyring({ masterSecret: "", issuerBaseUrl: BASE })).toThrow(TypeError);
  });
});
