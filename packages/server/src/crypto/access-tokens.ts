/**
 * ES256 access tokens (PROTOCOL.md §5): signing, verification without a database read, and the JWKS.
 *
 * Keys come from `signing-keys.ts`: derived from the master secret, one pair per (project, audience kind,
 * generation). Tokens are signed with the "current" key of their audience kind; the JWKS publishes "current" and
 * "next"; verification accepts either.
 *
 * Derived keys are cached per process in an LRU of `maxCachedProjects` projects (default 4096; a project holds at most
 * six keys, a few KB). Keys for a project named in a token are only cached once that token's signature has verified,
 * so tokens with made-up project ids cannot push real projects out of the cache.
 *
 * Verification steps, in order (any failure before step 6 is "unparsable"):
 *   1. the token is three base64url parts whose header and payload are JSON;
 *   2. header: `alg` is exactly ES256 (never "none", never HMAC) and there is a `kid`;
 *   3. `aud` names a project and an audience kind; the key for that project and kind with that `kid` exists;
 *   4. the ECDSA signature is valid for that public key;
 *   5. the claims have the exact shape of §5.1, `project_id` matches `aud`, `iss` is the issuer for that kind, and
 *      the `is_anonymous` / `is_restricted` / `restricted_reason` flags agree with the kind;
 *   6. the caller allows this kind of user ("anonymous_not_allowed", "restricted_not_allowed");
 *   7. `exp` is in the future ("expired"); `iat` and `nbf` are not in the future, with 30 s of tolerance for clocks
 *      that disagree between servers.
 * Step 6 comes before 7 because refreshing an expired token would not help a caller who refuses that kind of user.
 * Steps 1-5 depend on the token alone; their success is remembered per token (see `verifyAccessToken`).
 *
 * Signing and verifying use node:crypto directly (ECDSA with the signature as r || s, RFC 7518 §3.4): the same
 * bytes jose would produce, at a third of its cost per signature and two thirds per verification.
 */

import { createHash, sign, verify } from "node:crypto";
import {
  type AccessTokenClaims,
  accessTokenAudience,
  accessTokenIssuer,
  audienceKindOf,
  isValidProjectId,
  parseAccessTokenAudience,
  type RestrictedReason,
  readAccessTokenClaims,
} from "./access-token-claims.ts";
import { LruCache } from "./lru.ts";
import {
  type AudienceKind,
  deriveSigningKey,
  type KeyGeneration,
  type PublicSigningJwk,
  type SigningKey,
} from "./signing-keys.ts";

export type SignAccessTokenInput = {
  projectId: string;
  branchId: "main";
  userId: string;
  /** Id of the session (refresh token row) this token belongs to. */
  refreshTokenId: string;
  name: string | null;
  email: string | null;
  emailVerified: boolean;
  selectedTeamId: string | null;
  signedUpAtSeconds: number;
  isAnonymous: boolean;
  isRestricted: boolean;
  restrictedReason: RestrictedReason | null;
  requiresTotpMfa: boolean;
  /**
   * Lifetime. The official SDK refuses a fresh token with less than 20 s left (PROTOCOL.md §5.3), so keep this well
   * above a minute; the default lifetime is 10 minutes.
   */
  expiresInSeconds: number;
};

export type VerifyAccessTokenOptions = {
  /** `x-stack-allow-anonymous-user: true`. Also lets restricted users through, as the header does. */
  allowAnonymous: boolean;
  /** `x-stack-allow-restricted-user: true`. */
  allowRestricted: boolean;
};

/**
 * Ids read from the token's payload, for error details (ACCESS_TOKEN_EXPIRED carries them). For "unparsable" they
 * come from an unverified payload and must not be trusted for anything else. Each is null when absent.
 */
export type DecodedTokenIds = {
  projectId: string | null;
  userId: string | null;
  refreshTokenId: string | null;
};

export type VerifyAccessTokenResult =
  | { ok: true; claims: AccessTokenClaims; audienceKind: AudienceKind }
  | {
      ok: false;
      reason: "unparsable";
      decoded: DecodedTokenIds;
      /**
       * For a token that looks like ours but fails: the likely cause when instances disagree, a sentence for the
       * error's message (its issuer names another GATEHOUSE_BASE_URL, or its signature another GATEHOUSE_SECRET).
       */
      mismatch?: string;
    }
  | { ok: false; reason: "expired"; expiredAtMillis: number; decoded: DecodedTokenIds }
  | { ok: false; reason: "anonymous_not_allowed"; decoded: DecodedTokenIds }
  | {
      ok: false;
      reason: "restricted_not_allowed";
      restrictedReason: RestrictedReason | null;
      decoded: DecodedTokenIds;
    };

export type JwksOptions = {
  includeRestricted?: boolean;
  /** Also includes the restricted keys: anonymous users are restricted users too. */
  includeAnonymous?: boolean;
};

export type TokenKeyring = {
  signAccessToken(input: SignAccessTokenInput): Promise<string>;
  verifyAccessToken(token: string, options: VerifyAccessTokenOptions): Promise<VerifyAccessTokenResult>;
  /** 2 keys by default, 4 with restricted, 6 with anonymous (PROTOCOL.md §5.2). */
  jwks(projectId: string, options?: JwksOptions): { keys: PublicSigningJwk[] };
  issuer(projectId: string, kind: AudienceKind): string;
};

export type TokenKeyringOptions = {
  /** `GATEHOUSE_SECRET`. Every process sharing it derives the same keys. */
  masterSecret: string;
  /** Public base URL of the server (`GATEHOUSE_BASE_URL`); issuers are built from it. */
  issuerBaseUrl: string;
  /** How many projects' keys to keep per process. Default 4096. */
  maxCachedProjects?: number;
  /**
   * How many verified tokens to remember per process (by SHA-256; about 1 KB each). Default 8192: the active
   * sessions of a busy instance within one token lifetime.
   */
  maxVerifiedTokens?: number;
  /** Clock in milliseconds since the epoch; tests replace it. Default `Date.now`. */
  now?: () => number;
};

/** Tolerance for `iat` and `nbf` in the future, for servers whose clocks disagree a little. */
const CLOCK_TOLERANCE_SECONDS = 30;
/** Longer inputs are refused before any parsing. Our tokens are well under 2 KB. */
const MAX_TOKEN_LENGTH = 8192;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

type KeyPair = Record<KeyGeneration, SigningKey>;
type ProjectKeys = Partial<Record<AudienceKind, KeyPair>>;

const KINDS: readonly AudienceKind[] = ["default", "restricted", "anonymous"];
/** The header parameters a token may carry: the two we write, and `typ`, which changes nothing. */
const ALLOWED_HEADER_PARAMETERS: ReadonlySet<string> = new Set(["alg", "kid", "typ"]);

type Unparsable = Extract<VerifyAccessTokenResult, { reason: "unparsable" }>;

/** What steps 1-5 established about one token; kept per token (see `verifyAccessToken`). */
type VerifiedToken = {
  claims: AccessTokenClaims;
  kind: AudienceKind;
  /** `nbf` as the payload had it (not one of the §5.1 claims, so not in `claims`), checked at each use. */
  nbf: unknown;
};

export function createTokenKeyring(options: TokenKeyringOptions): TokenKeyring {
  const { masterSecret, issuerBaseUrl } = options;
  if (typeof masterSecret !== "string" || masterSecret.length === 0) {
    throw new TypeError("createTokenKeyring: masterSecret must be a non-empty string");
  }
  new URL(issuerBaseUrl); // throws early on a malformed base URL
  // Read Date.now at call time (not captured once), so a clock moved by tests or by the OS is seen.
  const now = options.now ?? (() => Date.now());
  const cache = new LruCache<string, ProjectKeys>(options.maxCachedProjects ?? 4096);
  const verifiedTokens = new LruCache<string, VerifiedToken>(options.maxVerifiedTokens ?? 8192);

  function deriveKeyPair(projectId: string, kind: AudienceKind): KeyPair {
    return {
      current: deriveSigningKey(masterSecret, projectId, kind, "current"),
      next: deriveSigningKey(masterSecret, projectId, kind, "next"),
    };
  }

  function cachedKeyPair(projectId: string, kind: AudienceKind): KeyPair | undefined {
    return cache.get(projectId)?.[kind];
  }

  function rememberKeyPair(projectId: string, kind: AudienceKind, pair: KeyPair): void {
    cache.set(projectId, { ...cache.get(projectId), [kind]: pair });
  }

  /** Keys for a project the server itself names (signing, JWKS): derive and cache. */
  function keyPair(projectId: string, kind: AudienceKind): KeyPair {
    let pair = cachedKeyPair(projectId, kind);
    if (!pair) {
      pair = deriveKeyPair(projectId, kind);
      rememberKeyPair(projectId, kind, pair);
    }
    return pair;
  }

  function assertProjectId(projectId: string): void {
    if (!isValidProjectId(projectId)) throw new TypeError(`Invalid project id "${projectId}"`);
  }

  function issuer(projectId: string, kind: AudienceKind): string {
    return accessTokenIssuer(issuerBaseUrl, projectId, kind);
  }

  async function signAccessToken(input: SignAccessTokenInput): Promise<string> {
    assertProjectId(input.projectId);
    if (input.branchId !== "main") throw new TypeError(`Only branch "main" exists, got "${input.branchId}"`);
    if (input.isAnonymous && !input.isRestricted) {
      throw new TypeError("An anonymous user is always restricted: isRestricted must be true");
    }
    if (input.isRestricted !== (input.restrictedReason !== null)) {
      throw new TypeError("isRestricted must be true exactly when restrictedReason is set");
    }
    if (!Number.isFinite(input.expiresInSeconds) || input.expiresInSeconds < 1) {
      throw new RangeError(`expiresInSeconds must be at least 1, got ${input.expiresInSeconds}`);
    }
    const kind = audienceKindOf(input);
    const key = keyPair(input.projectId, kind).current;
    const iat = Math.floor(now() / 1000);
    const claims: AccessTokenClaims = {
      sub: input.userId,
      iat,
      exp: iat + Math.floor(input.expiresInSeconds),
      iss: issuer(input.projectId, kind),
      aud: accessTokenAudience(input.projectId, kind),
      project_id: input.projectId,
      branch_id: "main",
      refresh_token_id: input.refreshTokenId,
      role: "authenticated",
      name: input.name,
      email: input.email,
      email_verified: input.emailVerified,
      selected_team_id: input.selectedTeamId,
      signed_up_at: Math.floor(input.signedUpAtSeconds),
      is_anonymous: input.isAnonymous,
      is_restricted: input.isRestricted,
      restricted_reason: input.restrictedReason === null ? null : { type: input.restrictedReason.type },
      requires_totp_mfa: input.requiresTotpMfa,
    };
    // The header is exactly {alg, kid} (no "typ"), as the reference platform's tokens have it.
    const signingInput = `${base64urlJson({ alg: "ES256", kid: key.kid })}.${base64urlJson(claims)}`;
    const signature = sign("sha256", Buffer.from(signingInput), {
      key: key.privateKey,
      dsaEncoding: "ieee-p1363",
    });
    return `${signingInput}.${signature.toString("base64url")}`;
  }

  /**
   * Steps 1-5: what depends on the token alone, so its outcome can be remembered. Returns the verified token, or
   * the "unparsable" failure with the ids read from the unverified payload.
   */
  function checkSignedToken(token: string): VerifiedToken | Unparsable {
    // 1. Shape: three base64url parts, the first two JSON objects.
    const [encodedHeader, encodedPayload, encodedSignature] = token.split(".") as [string, string, string];
    const header = parseJsonObject(encodedHeader);
    const unverifiedPayload = parseJsonObject(encodedPayload);
    if (!header || !unverifiedPayload) return { ok: false, reason: "unparsable", decoded: NO_IDS };
    // From here on every failure reports these ids. Until step 4 they are unverified.
    const decoded: DecodedTokenIds = {
      projectId: stringOrNull(unverifiedPayload.project_id),
      userId: stringOrNull(unverifiedPayload.sub),
      refreshTokenId: stringOrNull(unverifiedPayload.refresh_token_id ?? unverifiedPayload.refreshTokenId),
    };
    const unparsable = { ok: false, reason: "unparsable", decoded } as const;

    // 2. Header. Only ES256 is ever accepted, which rules out "none" and the classic attack of an HS256 token
    //    "signed" with the public key as HMAC secret. Any header parameter we do not write (crit, b64, jwk, jku,
    //    x5u...) makes the token unparsable rather than being half-understood.
    if (header.alg !== "ES256" || typeof header.kid !== "string") return unparsable;
    if (Object.keys(header).some((name) => !ALLOWED_HEADER_PARAMETERS.has(name))) return unparsable;

    // 3. Which project and kind, hence which keys. The key is chosen by us from `aud`, never taken from the token.
    const audience = parseAccessTokenAudience(unverifiedPayload.aud);
    if (!audience) return unparsable;
    const { projectId, kind } = audience;
    const cachedPair = cachedKeyPair(projectId, kind);
    const pair = cachedPair ?? deriveKeyPair(projectId, kind);
    const key = [pair.current, pair.next].find((candidate) => candidate.kid === header.kid);
    // Instances behind one load balancer that disagree on their settings refuse each other's tokens; saying which
    // setting differs turns an hour of debugging into a config fix. Nothing here is secret: issuers are public.
    const expectedIssuer = issuer(projectId, kind);
    const otherIssuer =
      typeof unverifiedPayload.iss === "string" && unverifiedPayload.iss !== expectedIssuer
        ? { ...unparsable, mismatch: issuerMismatch(unverifiedPayload.iss, expectedIssuer) }
        : null;
    const otherSecret = { ...unparsable, mismatch: SECRET_MISMATCH };
    if (!key) return otherIssuer ?? otherSecret;

    // 4. Signature: r || s, 32 bytes each for P-256 (RFC 7518 §3.4).
    const signature = Buffer.from(encodedSignature, "base64url");
    if (signature.length !== 64) return unparsable;
    const signingInput = Buffer.from(`${encodedHeader}.${encodedPayload}`);
    if (!verify("sha256", signingInput, { key: key.publicKey, dsaEncoding: "ieee-p1363" }, signature)) {
      return otherIssuer ?? otherSecret;
    }
    if (!cachedPair) rememberKeyPair(projectId, kind, pair);

    // 5. Claims: exact shape, and consistent with the audience.
    const claims = readAccessTokenClaims(unverifiedPayload);
    if (!claims) return unparsable;
    if (claims.project_id !== projectId) return unparsable;
    if (claims.iss !== expectedIssuer) return otherIssuer ?? unparsable;
    if (audienceKindOf({ isAnonymous: claims.is_anonymous, isRestricted: claims.is_restricted }) !== kind) {
      return unparsable;
    }
    if (claims.is_restricted !== (claims.restricted_reason !== null)) return unparsable;
    return { claims, kind, nbf: unverifiedPayload.nbf };
  }

  async function verifyAccessToken(
    token: string,
    verifyOptions: VerifyAccessTokenOptions,
  ): Promise<VerifyAccessTokenResult> {
    if (typeof token !== "string" || token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) {
      return { ok: false, reason: "unparsable", decoded: NO_IDS };
    }
    // Steps 1-5 cost an ECDSA verification (~0.2 ms, the largest part of a session read), and a client sends the
    // same token on every request for its ten minutes: their outcome is kept per token. Only tokens that passed
    // are kept, so forged tokens cannot fill the cache; the key is the token's SHA-256, so a lookup compares
    // digests, never the secret itself. Steps 6 and 7 depend on the request and the clock and run every time.
    const digest = createHash("sha256").update(token).digest("base64url");
    let verified = verifiedTokens.get(digest);
    if (!verified) {
      const checked = checkSignedToken(token);
      if ("ok" in checked) return checked;
      verified = checked;
      verifiedTokens.set(digest, verified);
    }
    const { claims, kind, nbf } = verified;
    const decoded: DecodedTokenIds = {
      projectId: claims.project_id,
      userId: claims.sub,
      refreshTokenId: claims.refresh_token_id,
    };

    // 6. Is this kind of user welcome here?
    if (kind === "anonymous" && !verifyOptions.allowAnonymous) {
      return { ok: false, reason: "anonymous_not_allowed", decoded };
    }
    if (kind === "restricted" && !verifyOptions.allowRestricted && !verifyOptions.allowAnonymous) {
      return {
        ok: false,
        reason: "restricted_not_allowed",
        restrictedReason: claims.restricted_reason,
        decoded,
      };
    }

    // 7. Time. `exp` is exact (the token is expired at that second); `iat` and `nbf` get some tolerance.
    const nowSeconds = now() / 1000;
    if (nowSeconds >= claims.exp) {
      return { ok: false, reason: "expired", expiredAtMillis: claims.exp * 1000, decoded };
    }
    if (claims.iat > nowSeconds + CLOCK_TOLERANCE_SECONDS)
      return { ok: false, reason: "unparsable", decoded };
    if (nbf !== undefined && (typeof nbf !== "number" || nbf > nowSeconds + CLOCK_TOLERANCE_SECONDS)) {
      return { ok: false, reason: "unparsable", decoded };
    }

    return { ok: true, claims, audienceKind: kind };
  }

  function jwks(projectId: string, jwksOptions: JwksOptions = {}): { keys: PublicSigningJwk[] } {
    assertProjectId(projectId);
    const kinds = KINDS.filter(
      (kind) =>
        kind === "default" ||
        (kind === "restricted" && (jwksOptions.includeRestricted || jwksOptions.includeAnonymous)) ||
        (kind === "anonymous" && jwksOptions.includeAnonymous),
    );
    const keys: PublicSigningJwk[] = [];
    for (const kind of kinds) {
      const pair = keyPair(projectId, kind);
      keys.push({ ...pair.current.publicJwk }, { ...pair.next.publicJwk });
    }
    return { keys };
  }

  return { signAccessToken, verifyAccessToken, jwks, issuer };
}

const SECRET_MISMATCH =
  "Its issuer is this server's, but its signature does not verify: it was likely signed by an instance with " +
  "another GATEHOUSE_SECRET (every instance needs the same one), or before the secret was changed.";

function issuerMismatch(tokenIssuer: string, expectedIssuer: string): string {
  const shown = tokenIssuer.length > 200 ? `${tokenIssuer.slice(0, 200)}…` : tokenIssuer;
  return (
    `It was issued by ${JSON.stringify(shown)}, but this server's issuer is ${JSON.stringify(expectedIssuer)}: ` +
    "the instance that issued it likely has another GATEHOUSE_BASE_URL (every instance needs the same one)."
  );
}

const NO_IDS: DecodedTokenIds = Object.freeze({ projectId: null, userId: null, refreshTokenId: null });

function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** A base64url part decoded as a JSON object, or null for anything else (an array, a number, bad JSON). */
function parseJsonObject(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}
