/**
 * The access token's claims (PROTOCOL.md §5.1), its issuer and audience, and a strict reader for decoded payloads.
 *
 * The official SDK decodes and schema-checks every token it receives and throws the token away if a claim is
 * missing, so the claim set is exact: no claim added, none left out, nullable ones present as null.
 */

import type { AccessTokenClaims, WireRestrictedReason } from "@gatehouse/shared";
import type { AudienceKind } from "./signing-keys.ts";

/** The claim set is defined once, in @gatehouse/shared, for the server that signs it and the SDK that reads it. */
export type { AccessTokenClaims };
export type RestrictedReason = WireRestrictedReason;
export type RestrictedReasonType = RestrictedReason["type"];

const RESTRICTED_REASON_TYPES: readonly string[] = [
  "anonymous",
  "email_not_verified",
  "restricted_by_administrator",
] satisfies RestrictedReasonType[];

/**
 * Project ids are UUIDs or the literal `internal` (PROTOCOL.md §6). We accept a slightly wider, URL-safe shape, but
 * nothing with `/`, `:` or `.` that could change the meaning of an issuer URL or an audience.
 */
const PROJECT_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function isValidProjectId(projectId: unknown): projectId is string {
  return typeof projectId === "string" && PROJECT_ID.test(projectId);
}

const ISSUER_PATHS: Record<AudienceKind, string> = {
  default: "/api/v1/projects/",
  restricted: "/api/v1/projects-restricted-users/",
  anonymous: "/api/v1/projects-anonymous-users/",
};

const AUDIENCE_SUFFIXES: Record<AudienceKind, string> = {
  default: "",
  restricted: ":restricted",
  anonymous: ":anon",
};

/**
 * The `iss` of a token: `new URL("/api/v1/projects/<projectId>", base)` for normal users, with
 * `projects-restricted-users` or `projects-anonymous-users` instead of `projects` for the other kinds. The path is
 * absolute, so any path in `base` is dropped, exactly as the reference server does.
 */
export function accessTokenIssuer(issuerBaseUrl: string, projectId: string, kind: AudienceKind): string {
  return new URL(ISSUER_PATHS[kind] + projectId, issuerBaseUrl).toString();
}

/** The `aud` of a token: `<projectId>`, `<projectId>:restricted` or `<projectId>:anon`. */
export function accessTokenAudience(projectId: string, kind: AudienceKind): string {
  return projectId + AUDIENCE_SUFFIXES[kind];
}

/** Splits an `aud` into project id and kind, or null if it has no valid shape. */
export function parseAccessTokenAudience(aud: unknown): { projectId: string; kind: AudienceKind } | null {
  if (typeof aud !== "string") return null;
  let kind: AudienceKind = "default";
  let projectId = aud;
  if (aud.endsWith(AUDIENCE_SUFFIXES.anonymous)) {
    kind = "anonymous";
    projectId = aud.slice(0, -AUDIENCE_SUFFIXES.anonymous.length);
  } else if (aud.endsWith(AUDIENCE_SUFFIXES.restricted)) {
    kind = "restricted";
    projectId = aud.slice(0, -AUDIENCE_SUFFIXES.restricted.length);
  }
  return isValidProjectId(projectId) ? { projectId, kind } : null;
}

/** The audience kind a user's flags call for. Anonymous users are always restricted too. */
export function audienceKindOf(flags: { isAnonymous: boolean; isRestricted: boolean }): AudienceKind {
  if (flags.isAnonymous) return "anonymous";
  return flags.isRestricted ? "restricted" : "default";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNumericDate(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

function isStringOrNull(value: unknown): value is string | null {
  return value === null || typeof value === "string";
}

/**
 * Reads the claims from a decoded payload, or returns null if any claim is missing or has the wrong type. Accepts the
 * legacy camelCase `refreshTokenId` / `branchId` of older tokens and returns the snake_case names. Claims outside the
 * set are dropped. Only checks shapes; signature, issuer, audience and times are checked by the caller.
 */
export function readAccessTokenClaims(payload: unknown): AccessTokenClaims | null {
  if (!isObject(payload)) return null;
  const p = payload;
  const refreshTokenId = p.refresh_token_id ?? p.refreshTokenId;
  const branchId = p.branch_id ?? p.branchId;
  const reason = p.restricted_reason;
  if (
    typeof p.sub !== "string" ||
    !isNumericDate(p.iat) ||
    !isNumericDate(p.exp) ||
    typeof p.iss !== "string" ||
    typeof p.aud !== "string" ||
    typeof p.project_id !== "string" ||
    branchId !== "main" ||
    typeof refreshTokenId !== "string" ||
    p.role !== "authenticated" ||
    !isStringOrNull(p.name) ||
    !isStringOrNull(p.email) ||
    typeof p.email_verified !== "boolean" ||
    !isStringOrNull(p.selected_team_id) ||
    !isNumericDate(p.signed_up_at) ||
    typeof p.is_anonymous !== "boolean" ||
    typeof p.is_restricted !== "boolean" ||
    !(reason === null || (isObject(reason) && RESTRICTED_REASON_TYPES.includes(reason.type as string))) ||
    typeof p.requires_totp_mfa !== "boolean"
  ) {
    return null;
  }
  return {
    sub: p.sub,
    iat: p.iat,
    exp: p.exp,
    iss: p.iss,
    aud: p.aud,
    project_id: p.project_id,
    branch_id: "main",
    refresh_token_id: refreshTokenId,
    role: "authenticated",
    name: p.name,
    email: p.email,
    email_verified: p.email_verified,
    selected_team_id: p.selected_team_id,
    signed_up_at: p.signed_up_at,
    is_anonymous: p.is_anonymous,
    is_restricted: p.is_restricted,
    restricted_reason: reason === null ? null : { type: (reason as RestrictedReason).type },
    requires_totp_mfa: p.requires_totp_mfa,
  };
}
