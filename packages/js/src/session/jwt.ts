/**
 * Access tokens are ES256 JWTs (PROTOCOL.md §5.1). The SDK never verifies the signature (the server does); it
 * decodes the payload to learn the expiry and checks the claim set, treating a token that fails as invalid.
 *
 * The claims are @gatehouse/shared's, the set the server signs. The SDK reads them as leniently as the reference SDK
 * does, so that tokens of other compatible servers work too: `exp` may be absent and `nbf` present, `aud` may be a
 * list, and the branch and the restriction's name are not checked.
 */
import type { AccessTokenClaims as SignedClaims } from "@gatehouse/shared";

type Lenient = "exp" | "aud" | "branch_id" | "restricted_reason";

export type AccessTokenClaims = Omit<SignedClaims, Lenient> & {
  exp?: SignedClaims["exp"];
  nbf?: number;
  aud: SignedClaims["aud"] | SignedClaims["aud"][];
  branch_id: string;
  restricted_reason: { type: string } | null;
};

function base64UrlDecode(segment: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(segment)) throw new Error("not base64url");
  const base64 = segment.replace(/-/g, "+").replace(/_/g, "/");
  const padded = base64 + "=".repeat((4 - (base64.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

function parseSegment(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(base64UrlDecode(segment));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const isString = (value: unknown): value is string => typeof value === "string";
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isBoolean = (value: unknown): value is boolean => typeof value === "boolean";
const isNullableString = (value: unknown) => value === null || isString(value);

/**
 * Which claims must be there and what they must look like; `exp` and `nbf` may be absent. Keyed by the shared claim
 * set, so a claim added, renamed or dropped there fails the typecheck here.
 */
const claimChecks: { [Claim in Exclude<keyof SignedClaims, "exp">]: (value: unknown) => boolean } = {
  sub: isString,
  iat: isNumber,
  iss: isString,
  aud: (value) => isString(value) || (Array.isArray(value) && value.every(isString)),
  project_id: isString,
  branch_id: isString,
  refresh_token_id: isString,
  role: (value) => value === "authenticated",
  name: isNullableString,
  email: isNullableString,
  email_verified: isBoolean,
  selected_team_id: isNullableString,
  signed_up_at: isNumber,
  is_anonymous: isBoolean,
  is_restricted: isBoolean,
  restricted_reason: (value) =>
    value === null || (typeof value === "object" && isString((value as { type?: unknown }).type)),
  requires_totp_mfa: isBoolean,
};

/** The claims of a well-formed access token, or null when the token is not one (bad shape, bad claims). */
export function decodeAccessToken(token: string): AccessTokenClaims | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const header = parseSegment(parts[0]!);
  if (!header || !isString(header.alg)) return null;
  const payload = parseSegment(parts[1]!);
  if (!payload) return null;
  for (const [claim, check] of Object.entries(claimChecks)) {
    if (!(claim in payload) || !check(payload[claim])) return null;
  }
  if ("exp" in payload && !isNumber(payload.exp)) return null;
  if ("nbf" in payload && !isNumber(payload.nbf)) return null;
  return payload as AccessTokenClaims;
}

/**
 * Milliseconds the token stays usable at `now`: Infinity without `exp`, negative once expired. A token that is
 * not valid yet (`nbf` in the future) counts as unusable.
 */
export function millisUntilExpiry(claims: AccessTokenClaims, now: number): number {
  if (claims.nbf !== undefined && claims.nbf * 1000 > now) return -1;
  return claims.exp === undefined ? Number.POSITIVE_INFINITY : claims.exp * 1000 - now;
}
