/**
 * What the cross-domain hand-off (oauth/cross-domain.ts, PROTOCOL-EXTRA.md §8.2) needs of sessions: the session a
 * refresh token names, expired ones included (the route tells "not this session" from "no longer valid"), and the
 * reset of a handed-off session's expiry, since the receiving domain starts using it afresh.
 */
import { and, eq, gt, isNull, or } from "drizzle-orm";
import { sha256Hex } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { type SessionRow, sessions } from "./schema.ts";
import { DEFAULT_SESSION_LIFETIME_MS } from "./service.ts";

/** The session of a refresh token in the project, expired or not; null for a token that names none. */
export async function findSessionOfRefreshToken(
  db: Database,
  projectId: string,
  refreshToken: string,
): Promise<SessionRow | null> {
  if (refreshToken.length === 0 || refreshToken.length > 200) return null;
  const [row] = await db
    .select()
    .from(sessions)
    .where(and(eq(sessions.projectId, projectId), eq(sessions.refreshTokenHash, sha256Hex(refreshToken))))
    .limit(1);
  return row ?? null;
}

export function isSessionExpired(session: SessionRow, now = Date.now()): boolean {
  return session.expiresAt !== null && session.expiresAt.getTime() <= now;
}

/**
 * Gives a live session a full lifetime (one year) from now; null when the session is gone or expired, which the
 * exchange treats as an unusable code.
 */
export async function renewSession(
  db: Database,
  projectId: string,
  sessionId: string,
): Promise<SessionRow | null> {
  const now = new Date();
  const [row] = await db
    .update(sessions)
    .set({ expiresAt: new Date(now.getTime() + DEFAULT_SESSION_LIFETIME_MS) })
    .where(
      and(
        eq(sessions.projectId, projectId),
        eq(sessions.id, sessionId),
        or(isNull(sessions.expiresAt), gt(sessions.expiresAt, now)),
      ),
    )
    .returning();
  return row ?? null;
}
