/**
 * Verification of OpenID Connect ID tokens against their issuer's published keys (JWKS): signature, issuer,
 * audience and expiry. Used for the ID tokens of a sign-in (Apple, OpenID issuers) and for the identity token an
 * iOS app posts to `/auth/oauth/callback/apple/native`, which comes from the app and proves nothing until verified.
 */
import { createRemoteJWKSet, customFetch, errors, type JWTPayload, jwtVerify } from "jose";
import type { Fetcher } from "./provider-fetch.ts";

/** Asymmetric algorithms only: an `HS256` token would be "signed" with a secret the issuer does not hold alone. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
const JWKS_TIMEOUT_MS = 5_000;
/** Clocks drift; a token is not refused for being a few seconds early or late. */
const CLOCK_TOLERANCE_SECONDS = 30;
const MAX_KEY_SETS = 500;

type KeySet = ReturnType<typeof createRemoteJWKSet>;
/** One key set per JWKS URL and fetch, which jose refreshes itself (on an unknown `kid`, after 10 minutes). */
const keySets = new Map<string, { fetcher: Fetcher; keys: KeySet }>();

function keySetFor(jwksUri: string, fetcher: Fetcher): KeySet {
  const cached = keySets.get(jwksUri);
  if (cached && cached.fetcher === fetcher) return cached.keys;
  const keys = createRemoteJWKSet(new URL(jwksUri), {
    timeoutDuration: JWKS_TIMEOUT_MS,
    [customFetch]: (url, options) => fetcher(url, options),
  });
  keySets.delete(jwksUri);
  keySets.set(jwksUri, { fetcher, keys });
  if (keySets.size > MAX_KEY_SETS) keySets.delete(keySets.keys().next().value!);
  return keys;
}

/** Why an ID token was refused; `unavailable` when the issuer's keys could not be fetched. */
export class IdTokenError extends Error {
  override readonly name = "IdTokenError";
  constructor(
    readonly kind: "invalid" | "unavailable",
    message: string,
  ) {
    super(message);
  }
}

export async function verifyIdToken(input: {
  idToken: string;
  issuer: string;
  /** The client id(s) the token must be issued to. */
  audience: string | readonly string[];
  jwksUri: string;
  fetcher: Fetcher;
}): Promise<JWTPayload & { sub: string }> {
  try {
    const { payload } = await jwtVerify(input.idToken, keySetFor(input.jwksUri, input.fetcher), {
      issuer: input.issuer,
      audience: [...(typeof input.audience === "string" ? [input.audience] : input.audience)],
      algorithms: ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ["sub", "exp", "iat"],
    });
    return payload as JWTPayload & { sub: string };
  } catch (error) {
    // jose's own errors judge the token; anything else (a refused or failed connection) is about reaching keys.
    if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new IdTokenError("unavailable", `The issuer's keys could not be fetched (${reason}).`);
    }
    throw new IdTokenError("invalid", `The ID token is not valid (${error.message}).`);
  }
}
