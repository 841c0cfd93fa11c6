import { knownError } from "@gatehouse/shared";
import { and, eq, gt, isNotNull, isNull, lt } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import {
  decryptSecret,
  encryptSecret,
  generateSecureToken,
  randomUuid,
  SECURE_TOKEN_LENGTH,
  sha256Hex,
} from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import { StatusError } from "../../http/status-error.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { sessions } from "../sessions/schema.ts";
import { findSessionByRefreshTokenHash, refreshSession, type TokenPair } from "../sessions/service.ts";
import { type UserRow, users } from "../users/schema.ts";
import { findPrimaryChannel } from "../users/service.ts";
import { restrictedReasonOf } from "../users/views.ts";
import { type CliAuthAttemptRow, cliAuthAttempts } from "./schema.ts";

export const DEFAULT_CLI_AUTH_LIFETIME_MS = 2 * 3600 * 1000;
export const MAX_CLI_AUTH_LIFETIME_MS = 24 * 3600 * 1000;
/** RATE_LIMITS.cliPollPerIp says why these numbers. */
export const CLI_POLL_RATE_LIMIT = RATE_LIMITS.cliPollPerIp;
/** Expired attempts are kept a day, so a late poll still hears "expired" instead of "invalid code". */
const KEEP_EXPIRED_MS = 24 * 3600 * 1000;
const REFRESH_TOKEN_PURPOSE = "cli-refresh-token";
export const INVALID_LOGIN_CODE_MESSAGE = "Invalid login code or the code has expired";

export type PollResult =
  | { status: "waiting" | "expired" | "used" }
  | { status: "success"; refresh_token: string };

const encryptionKey = (deps: AppDeps) => ({ masterSecret: deps.env.secret, purpose: REFRESH_TOKEN_PURPOSE });

/** Codes are generated with a fixed length; anything else cannot match and skips the database. */
function hashCode(code: string): string | null {
  return code.length === SECURE_TOKEN_LENGTH ? sha256Hex(code) : null;
}

/**
 * The session of a refresh token in any project, expired or not, with its user: the reference tells a token of
 * another project, and an expired one, apart from an unknown one (PROTOCOL-EXTRA §8.9). Only used to choose the
 * refusal; nothing of another project is returned to the caller.
 */
async function sessionOfRefreshToken(db: Database, refreshToken: string) {
  if (refreshToken.length === 0 || refreshToken.length > 200) return null;
  const [row] = await db
    .select({ session: sessions, user: users })
    .from(sessions)
    .leftJoin(users, and(eq(users.projectId, sessions.projectId), eq(users.id, sessions.userId)))
    .where(eq(sessions.refreshTokenHash, sha256Hex(refreshToken)))
    .limit(1);
  return row ?? null;
}

const isExpired = (session: { expiresAt: Date | null }) =>
  session.expiresAt !== null && session.expiresAt <= new Date();

/** The CLI's anonymous refresh token must be a live session of an anonymous user of this project. */
async function assertAnonymousSession(db: Database, projectId: string, refreshToken: string) {
  const found = await sessionOfRefreshToken(db, refreshToken);
  if (!found) throw new StatusError(400, "Invalid anon refresh token");
  if (found.session.projectId !== projectId) {
    throw new StatusError(400, "Anon refresh token does not belong to this project");
  }
  if (isExpired(found.session)) throw new StatusError(400, "The provided anon refresh token has expired");
  if (!found.user) throw new StatusError(400, "User not found for provided refresh token");
  if (!found.user.isAnonymous) {
    throw new StatusError(400, "The provided refresh token does not belong to an anonymous user");
  }
}

export async function createCliAuthAttempt(
  deps: AppDeps,
  input: { projectId: string; lifetimeMs: number; anonRefreshToken: string | undefined },
): Promise<{ pollingCode: string; loginCode: string; expiresAt: Date }> {
  const { db } = deps;
  // An empty token is no token, as on the reference.
  const anonRefreshToken = input.anonRefreshToken || undefined;
  if (anonRefreshToken !== undefined) await assertAnonymousSession(db, input.projectId, anonRefreshToken);
  // Sweeping here bounds the table without a background job.
  await db
    .delete(cliAuthAttempts)
    .where(
      and(
        eq(cliAuthAttempts.projectId, input.projectId),
        lt(cliAuthAttempts.expiresAt, new Date(Date.now() - KEEP_EXPIRED_MS)),
      ),
    );
  const pollingCode = generateSecureToken();
  const loginCode = generateSecureToken();
  const expiresAt = new Date(Date.now() + input.lifetimeMs);
  await db.insert(cliAuthAttempts).values({
    projectId: input.projectId,
    id: randomUuid(),
    pollingCodeHash: sha256Hex(pollingCode),
    loginCodeHash: sha256Hex(loginCode),
    anonRefreshTokenHash: anonRefreshToken === undefined ? null : sha256Hex(anonRefreshToken),
    anonRefreshTokenEncrypted:
      anonRefreshToken === undefined ? null : encryptSecret(anonRefreshToken, encryptionKey(deps)),
    expiresAt,
  });
  return { pollingCode, loginCode, expiresAt };
}

/** One poll of the CLI. Only one poller ever receives the refresh token: the hand-over is a conditional update. */
export async function pollCliAuthAttempt(
  deps: AppDeps,
  projectId: string,
  pollingCode: string,
): Promise<PollResult> {
  const hash = hashCode(pollingCode);
  const [attempt] = hash
    ? await deps.db
        .select()
        .from(cliAuthAttempts)
        .where(and(eq(cliAuthAttempts.projectId, projectId), eq(cliAuthAttempts.pollingCodeHash, hash)))
        .limit(1)
    : [];
  if (!attempt) throw knownError("INVALID_POLLING_CODE");
  if (attempt.usedAt) return { status: "used" };
  const now = new Date();
  if (attempt.expiresAt <= now) return { status: "expired" };
  if (!attempt.refreshTokenEncrypted) return { status: "waiting" };

  // The stored token is cleared as it is handed over: nothing readable stays behind once the CLI has it.
  const handedOver = await deps.db
    .update(cliAuthAttempts)
    .set({ usedAt: now, refreshTokenEncrypted: null })
    .where(
      and(
        eq(cliAuthAttempts.projectId, projectId),
        eq(cliAuthAttempts.id, attempt.id),
        isNull(cliAuthAttempts.usedAt),
        isNotNull(cliAuthAttempts.refreshTokenEncrypted),
      ),
    )
    .returning({ id: cliAuthAttempts.id });
  if (handedOver.length === 0) return { status: "used" };
  return {
    status: "success",
    refresh_token: decryptSecret(attempt.refreshTokenEncrypted, encryptionKey(deps)),
  };
}

/** The attempt behind a login code, while the browser may still act on it; otherwise the plain 400 of §4.9. */
export async function findPendingAttempt(
  db: Database,
  projectId: string,
  loginCode: string,
): Promise<CliAuthAttemptRow> {
  const hash = hashCode(loginCode);
  const [attempt] = hash
    ? await db
        .select()
        .from(cliAuthAttempts)
        .where(
          and(
            eq(cliAuthAttempts.projectId, projectId),
            eq(cliAuthAttempts.loginCodeHash, hash),
            isNull(cliAuthAttempts.usedAt),
            isNull(cliAuthAttempts.refreshTokenEncrypted),
            gt(cliAuthAttempts.expiresAt, new Date()),
          ),
        )
        .limit(1)
    : [];
  if (!attempt) throw new StatusError(400, INVALID_LOGIN_CODE_MESSAGE);
  return attempt;
}

/** Whether the CLI that started this attempt holds a live anonymous session. */
export async function attemptHasAnonymousSession(db: Database, attempt: CliAuthAttemptRow): Promise<boolean> {
  return (await anonymousUserOf(db, attempt)) !== null;
}

async function anonymousUserOf(db: Database, attempt: CliAuthAttemptRow): Promise<UserRow | null> {
  if (!attempt.anonRefreshTokenHash) return null;
  // The sessions table keeps the same SHA-256, so the stored hash finds the session without the token itself.
  const found = await findSessionByRefreshTokenHash(db, attempt.projectId, attempt.anonRefreshTokenHash);
  return found?.user.isAnonymous ? found.user : null;
}

/**
 * Gives the browser the CLI's anonymous session itself, once per attempt (PROTOCOL-EXTRA §8.9): a fresh access
 * token and the CLI's own refresh token, so that the browser can upgrade that user in place before completing.
 */
export async function claimAnonymousSession(
  deps: AppDeps,
  attempt: CliAuthAttemptRow,
  config: RenderedConfig,
  ip: string | null,
): Promise<TokenPair> {
  const user = await anonymousUserOf(deps.db, attempt);
  const noSession = () => new StatusError(400, "No anonymous session associated with this code");
  if (!user || !attempt.anonRefreshTokenEncrypted) throw noSession();
  const claimed = await deps.db
    .update(cliAuthAttempts)
    .set({ anonRefreshTokenHash: null, anonRefreshTokenEncrypted: null })
    .where(
      and(
        eq(cliAuthAttempts.projectId, attempt.projectId),
        eq(cliAuthAttempts.id, attempt.id),
        eq(cliAuthAttempts.anonRefreshTokenHash, attempt.anonRefreshTokenHash!),
        isNull(cliAuthAttempts.usedAt),
        isNull(cliAuthAttempts.refreshTokenEncrypted),
      ),
    )
    .returning({ id: cliAuthAttempts.id });
  if (claimed.length === 0) throw noSession();
  const refreshToken = decryptSecret(attempt.anonRefreshTokenEncrypted, encryptionKey(deps));
  const accessToken = await refreshSession(deps, attempt.projectId, refreshToken, config, ip);
  if (!accessToken) throw new StatusError(400, "Anonymous session is no longer valid");
  return { access_token: accessToken, refresh_token: refreshToken };
}

/**
 * Stores the browser's refresh token for the poller, verbatim: the CLI then holds the browser's own session. The
 * token must be a live session of this project, of a user who is not restricted. Whoever calls is not asked about
 * (the token is the proof), and the CLI's anonymous user is left as it is: no merge (PROTOCOL-EXTRA §8.9).
 */
export async function completeAttempt(
  deps: AppDeps,
  input: { attempt: CliAuthAttemptRow; refreshToken: string; config: RenderedConfig },
): Promise<void> {
  const { attempt } = input;
  const found = await sessionOfRefreshToken(deps.db, input.refreshToken);
  if (found && found.session.projectId !== attempt.projectId) {
    throw new StatusError(400, "Refresh token does not belong to this project");
  }
  if (!found?.user || isExpired(found.session)) throw new StatusError(400, "Invalid refresh token");
  const primary = await findPrimaryChannel(deps.db, attempt.projectId, found.user.id);
  const restrictedReason = restrictedReasonOf(found.user, primary, input.config);
  if (restrictedReason)
    throw knownError("RESTRICTED_USER_NOT_ALLOWED", { restricted_reason: restrictedReason });

  const stored = await deps.db
    .update(cliAuthAttempts)
    .set({
      refreshTokenEncrypted: encryptSecret(input.refreshToken, encryptionKey(deps)),
      // The CLI now gets the browser's session; its anonymous one must not be claimable any more.
      anonRefreshTokenHash: null,
      anonRefreshTokenEncrypted: null,
    })
    .where(
      and(
        eq(cliAuthAttempts.projectId, attempt.projectId),
        eq(cliAuthAttempts.id, attempt.id),
        isNull(cliAuthAttempts.usedAt),
        isNull(cliAuthAttempts.refreshTokenEncrypted),
        gt(cliAuthAttempts.expiresAt, new Date()),
      ),
    )
    .returning({ id: cliAuthAttempts.id });
  if (stored.length === 0) throw new StatusError(400, INVALID_LOGIN_CODE_MESSAGE);
}
