import { and, desc, eq, gt, isNull, ne, or, sql } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { generateSecureToken, randomUuid, sha256Hex } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { jsonRowOf, parseJsonRow } from "../../db/json-rows.ts";
import { preparedSql } from "../../db/prepared-sql.ts";
import type { AppDeps } from "../../deps.ts";
import { isUuid } from "../../fields/ids.ts";
import { requestGeo } from "../../http/client-geo.ts";
import { recordKnownAddressSql, sweepForgottenSignInAddresses } from "../../rate-limit/password-checks.ts";
import { tokenRefreshEvent } from "../activity/analytics.ts";
import { type ContactChannelRow, contactChannels } from "../contact-channels/schema.ts";
import type { PasswordChangedHook } from "../hooks.ts";
import { type UserRow, users } from "../users/schema.ts";
import { findPrimaryChannel } from "../users/service.ts";
import { restrictedReasonOf } from "../users/views.ts";
import { type SessionRow, sessions } from "./schema.ts";

/** A created session defaults to one year (SPEC.md §9); server-created ones may ask for at most 367 days. */
export const DEFAULT_SESSION_LIFETIME_MS = 365 * 24 * 3600 * 1000;
export const MAX_SESSION_LIFETIME_MS = 367 * 24 * 3600 * 1000;

export type TokenPair = { access_token: string; refresh_token: string };

/** A `user-agent` header as a session keeps it: its first 512 characters, none when empty. */
function storedUserAgent(userAgent: string | null | undefined): string | null {
  const trimmed = userAgent?.trim();
  return trimmed ? trimmed.slice(0, 512) : null;
}

type SessionValues = {
  projectId: string;
  id: string;
  userId: string;
  refreshTokenHash: string;
  isImpersonation: boolean;
  expiresAt: string;
  lastUsedIp: string | null;
  lastUsedUserAgent: string | null;
  /** JSON text, or null. */
  lastUsedGeo: string | null;
  /** `lastUsedIp` again, by the name of the address fragment; recorded as a known sign-in address when `remember`. */
  address: string | null;
  remember: boolean;
  /** When the address was recorded: the server's clock, as the known-address checks read it. */
  now: string;
};

// The session and, for a sign-in, its address as a known one: one statement, so one round trip and one commit
// after the password hash. The address's upsert is rate-limit's own fragment; it writes nothing unless `remember`.
const insertSessionStatement = preparedSql<SessionValues, { session: unknown }>(
  "insert_session",
  sql`with recorded as (${recordKnownAddressSql})
    insert into ${sessions} as s (project_id, id, user_id, refresh_token_hash, is_impersonation, expires_at,
      last_used_ip, last_used_user_agent, last_used_geo)
    values (${sql.placeholder("projectId")}, ${sql.placeholder("id")}, ${sql.placeholder("userId")},
      ${sql.placeholder("refreshTokenHash")}, ${sql.placeholder("isImpersonation")},
      ${sql.placeholder("expiresAt")}::timestamptz, ${sql.placeholder("lastUsedIp")},
      ${sql.placeholder("lastUsedUserAgent")}, ${sql.placeholder("lastUsedGeo")}::jsonb)
    returning ${jsonRowOf(sessions, "s")} as session`,
);

/**
 * Creates a session and returns its refresh token; only the token's SHA-256 is stored. `rememberAddress`: a
 * sign-in's session, whose `ip` is also recorded as a known sign-in address, in the same statement.
 */
export async function createSession(
  db: Database,
  input: {
    projectId: string;
    userId: string;
    isImpersonation?: boolean;
    expiresInMillis?: number;
    ip?: string | null;
    userAgent?: string | null;
    rememberAddress?: boolean;
  },
): Promise<{ session: SessionRow; refreshToken: string }> {
  const refreshToken = generateSecureToken();
  const now = new Date();
  // Only the request that signs in says where it is; a session made for someone else (impersonation) knows not.
  const geo = input.ip ? requestGeo() : null;
  const [row] = await insertSessionStatement(db, {
    projectId: input.projectId,
    id: randomUuid(),
    userId: input.userId,
    refreshTokenHash: sha256Hex(refreshToken),
    isImpersonation: input.isImpersonation ?? false,
    expiresAt: new Date(now.getTime() + (input.expiresInMillis ?? DEFAULT_SESSION_LIFETIME_MS)).toISOString(),
    lastUsedIp: input.ip ?? null,
    address: input.ip ?? null,
    lastUsedUserAgent: storedUserAgent(input.userAgent),
    lastUsedGeo: geo ? JSON.stringify(geo) : null,
    remember: input.rememberAddress ?? false,
    now: now.toISOString(),
  });
  if (input.rememberAddress) await sweepForgottenSignInAddresses(db);
  return { session: parseJsonRow(sessions, row!.session)!, refreshToken };
}

/**
 * Mints an access token for a session. Claims are rebuilt from the current user every time, so a refresh after
 * `PATCH /users/me` carries the new name (PROTOCOL.md §5.3).
 */
export async function mintAccessToken(
  deps: AppDeps,
  projectId: string,
  user: UserRow,
  sessionId: string,
  config: RenderedConfig,
  /** The user's primary email channel when the caller read it already (null: none); looked up otherwise. */
  knownPrimary?: ContactChannelRow | null,
): Promise<string> {
  const primary =
    knownPrimary === undefined ? await findPrimaryChannel(deps.db, projectId, user.id) : knownPrimary;
  const reason = restrictedReasonOf(user, primary, config);
  return deps.keyring.signAccessToken({
    projectId,
    branchId: "main",
    userId: user.id,
    refreshTokenId: sessionId,
    name: user.displayName,
    email: primary?.value ?? null,
    emailVerified: primary?.isVerified ?? false,
    selectedTeamId: user.selectedTeamId,
    signedUpAtSeconds: Math.floor(user.signedUpAt.getTime() / 1000),
    isAnonymous: user.isAnonymous,
    isRestricted: reason !== null,
    restrictedReason: reason,
    requiresTotpMfa: user.totpSecretEncrypted !== null,
    expiresInSeconds: deps.env.accessTokenTtlSeconds,
  });
}

/** Signs a user in: a new session and its first access token. */
export async function issueTokens(
  deps: AppDeps,
  projectId: string,
  user: UserRow,
  config: RenderedConfig,
  options: {
    isImpersonation?: boolean;
    expiresInMillis?: number;
    ip?: string | null;
    userAgent?: string | null;
    /** The user's primary email channel when the caller has it (undefined: looked up). */
    primaryChannel?: ContactChannelRow | null | undefined;
    /** Record `ip` as an address the user signed in from, with the session (see `createSession`). */
    rememberAddress?: boolean;
  } = {},
): Promise<TokenPair> {
  const { primaryChannel, ...sessionOptions } = options;
  const { session, refreshToken } = await createSession(deps.db, {
    projectId,
    userId: user.id,
    ...sessionOptions,
  });
  return {
    access_token: await mintAccessToken(deps, projectId, user, session.id, config, primaryChannel),
    refresh_token: refreshToken,
  };
}

/** The live session of a refresh token (not expired), with its user; null for anything else. */
export async function findSessionByRefreshToken(
  db: Database,
  projectId: string,
  refreshToken: string,
): Promise<{ session: SessionRow; user: UserRow } | null> {
  if (refreshToken.length === 0 || refreshToken.length > 200) return null;
  return findSessionByRefreshTokenHash(db, projectId, sha256Hex(refreshToken));
}

/** The same by the token's SHA-256, for a caller that keeps only that (the CLI login's anonymous session). */
export async function findSessionByRefreshTokenHash(
  db: Database,
  projectId: string,
  refreshTokenHash: string,
): Promise<{ session: SessionRow; user: UserRow } | null> {
  const [row] = await db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.projectId, projectId),
        eq(sessions.refreshTokenHash, refreshTokenHash),
        or(isNull(sessions.expiresAt), gt(sessions.expiresAt, new Date())),
      ),
    )
    .limit(1);
  return row ?? null;
}

type RefreshValues = { projectId: string; refreshTokenHash: string; now: string };

// The live session, its user and the user's primary email (what the token's claims need), as JSON rows of one
// statement that only reads: touching the session is left to the activity writer (touches.ts).
const refreshStatement = preparedSql<RefreshValues, { session: unknown; user: unknown; primary: unknown }>(
  "refresh_session",
  sql`
    select ${jsonRowOf(sessions, "s")} as session, ${jsonRowOf(users, "u")} as user,
      (select ${jsonRowOf(contactChannels, "c")} from ${contactChannels} c
        where c.project_id = u.project_id and c.user_id = u.id and c.is_primary limit 1) as primary
    from ${sessions} s join ${users} u on u.project_id = s.project_id and u.id = s.user_id
    where s.project_id = ${sql.placeholder("projectId")}
      and s.refresh_token_hash = ${sql.placeholder("refreshTokenHash")}
      and (s.expires_at is null or s.expires_at > ${sql.placeholder("now")}::timestamptz)`,
);

/**
 * A fresh access token for a refresh token (both the OAuth refresh grant and `/auth/sessions/current/refresh`), in
 * one prepared statement that reads the live session by its token's hash, with its user and primary email. When
 * and from where the session was used, the user's `last_active_at` and the `$token-refresh` event for the metrics
 * are buffered and written in batches (activity/analytics.ts), so nothing waits on a write. Null for a token that
 * names no live session.
 */
export async function refreshSession(
  deps: AppDeps,
  projectId: string,
  refreshToken: string,
  config: RenderedConfig,
  ip: string | null,
  userAgent: string | null = null,
): Promise<string | null> {
  if (refreshToken.length === 0 || refreshToken.length > 200) return null;
  const now = new Date();
  const [row] = await refreshStatement(deps.db, {
    projectId,
    refreshTokenHash: sha256Hex(refreshToken),
    now: now.toISOString(),
  });
  const session = row ? parseJsonRow(sessions, row.session) : null;
  const user = row ? parseJsonRow(users, row.user) : null;
  if (!session || !user) return null;
  deps.activity.touchSession({
    projectId,
    sessionId: session.id,
    at: now,
    ip,
    userAgent: storedUserAgent(userAgent),
    geo: ip ? requestGeo() : null,
  });
  deps.activity.record(tokenRefreshEvent({ projectId, sessionId: session.id, user, ip }));
  const primary = parseJsonRow(contactChannels, row!.primary);
  return mintAccessToken(deps, projectId, user, session.id, config, primary);
}

export async function listSessions(db: Database, projectId: string, userId: string): Promise<SessionRow[]> {
  // Not a user id at all (servers may name any string): nobody's sessions, rather than a failed uuid cast.
  if (!isUuid(userId)) return [];
  return db
    .select()
    .from(sessions)
    .where(
      and(
        eq(sessions.projectId, projectId),
        eq(sessions.userId, userId),
        or(isNull(sessions.expiresAt), gt(sessions.expiresAt, new Date())),
      ),
    )
    .orderBy(desc(sessions.createdAt), desc(sessions.id));
}

export async function deleteSession(db: Database, projectId: string, sessionId: string): Promise<boolean> {
  const deleted = await db
    .delete(sessions)
    .where(and(eq(sessions.projectId, projectId), eq(sessions.id, sessionId)))
    .returning({ id: sessions.id });
  return deleted.length > 0;
}

/** Ends every session of a user except, optionally, one (e.g. after a password change), in one statement. */
export async function deleteOtherSessions(
  db: Database,
  projectId: string,
  userId: string,
  keepSessionId: string | null,
): Promise<void> {
  await db
    .delete(sessions)
    .where(
      and(
        eq(sessions.projectId, projectId),
        eq(sessions.userId, userId),
        keepSessionId ? ne(sessions.id, keepSessionId) : undefined,
      ),
    );
}

/**
 * Ends the session a refresh token belongs to, by the token's hash: an OAuth authorization code used twice means
 * someone else may hold it, so the session it produced is no longer trusted (RFC 6749 §4.1.2).
 */
export async function deleteSessionByRefreshTokenHash(
  db: Database,
  projectId: string,
  refreshTokenHash: string,
): Promise<void> {
  await db
    .delete(sessions)
    .where(and(eq(sessions.projectId, projectId), eq(sessions.refreshTokenHash, refreshTokenHash)));
}

/** The `passwordChanged` hook (features/hooks.ts): a new password ends every session of the user. */
export const signOutEverywhereOnPasswordChange: PasswordChangedHook = (tx, { projectId, userId }) =>
  deleteOtherSessions(tx, projectId, userId, null).then(() => {});
