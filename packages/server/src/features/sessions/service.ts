import { and, desc, eq, gt, isNull, ne, or } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { generateSecureToken, randomUuid, sha256Hex } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import { isUuid } from "../../fields/ids.ts";
import { tokenRefreshEvent } from "../events/analytics.ts";
import { type UserRow, users } from "../users/schema.ts";
import { findPrimaryChannel } from "../users/service.ts";
import { touchUserActivity } from "../users/store.ts";
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

/** Creates a session and returns its refresh token; only the token's SHA-256 is stored. */
export async function createSession(
  db: Database,
  input: {
    projectId: string;
    userId: string;
    isImpersonation?: boolean;
    expiresInMillis?: number;
    ip?: string | null;
    userAgent?: string | null;
  },
): Promise<{ session: SessionRow; refreshToken: string }> {
  const refreshToken = generateSecureToken();
  const [session] = await db
    .insert(sessions)
    .values({
      projectId: input.projectId,
      id: randomUuid(),
      userId: input.userId,
      refreshTokenHash: sha256Hex(refreshToken),
      isImpersonation: input.isImpersonation ?? false,
      expiresAt: new Date(Date.now() + (input.expiresInMillis ?? DEFAULT_SESSION_LIFETIME_MS)),
      lastUsedIp: input.ip ?? null,
      lastUsedUserAgent: storedUserAgent(input.userAgent),
    })
    .returning();
  return { session: session!, refreshToken };
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
): Promise<string> {
  const primary = await findPrimaryChannel(deps.db, projectId, user.id);
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
  } = {},
): Promise<TokenPair> {
  const { session, refreshToken } = await createSession(deps.db, { projectId, userId: user.id, ...options });
  return {
    access_token: await mintAccessToken(deps, projectId, user, session.id, config),
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
  const [row] = await db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.projectId, projectId),
        eq(sessions.refreshTokenHash, sha256Hex(refreshToken)),
        or(isNull(sessions.expiresAt), gt(sessions.expiresAt, new Date())),
      ),
    )
    .limit(1);
  return row ?? null;
}

/**
 * A fresh access token for a refresh token (both the OAuth refresh grant and `/auth/sessions/current/refresh`),
 * recording when and from where the session was used, and a `$token-refresh` activity event for the metrics.
 */
export async function refreshSession(
  deps: AppDeps,
  projectId: string,
  refreshToken: string,
  config: RenderedConfig,
  ip: string | null,
  userAgent: string | null = null,
): Promise<{ accessToken: string; session: SessionRow; user: UserRow } | null> {
  const found = await findSessionByRefreshToken(deps.db, projectId, refreshToken);
  if (!found) return null;
  const now = new Date();
  await deps.db
    .update(sessions)
    .set({
      lastUsedAt: now,
      ...(ip ? { lastUsedIp: ip } : {}),
      ...(userAgent ? { lastUsedUserAgent: storedUserAgent(userAgent) } : {}),
    })
    .where(eq(sessions.id, found.session.id));
  await touchUserActivity(deps.db, projectId, found.user.id, now);
  // Buffered, written in a batch later (events/analytics.ts): no database work on this path.
  deps.activity.record(tokenRefreshEvent({ projectId, sessionId: found.session.id, user: found.user, ip }));
  const accessToken = await mintAccessToken(deps, projectId, found.user, found.session.id, config);
  return { accessToken, ...found };
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
