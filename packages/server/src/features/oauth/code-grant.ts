/**
 * The authorization code our callback gives the app, and its exchange at `POST /auth/oauth/token`
 * (`grant_type=authorization_code`, PROTOCOL.md §4.6): redirect URI and PKCE checked, then the sign-in completes
 * through `completeSignIn`, so users with MFA get MULTI_FACTOR_AUTHENTICATION_REQUIRED here. A cross-domain
 * hand-off's code instead answers the handing-off session itself (PROTOCOL-EXTRA.md §8.2), which signed in already.
 */

import { createHash } from "node:crypto";
import type { WireOAuthTokenResponse } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { and, eq, isNull, lt } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { constantTimeEqual, decryptSecret, encryptSecret, randomHex, sha256Hex } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import { StatusError } from "../../http/status-error.ts";
import { renewSession } from "../sessions/handoff.ts";
import {
  deleteSessionByRefreshTokenHash,
  findSessionByRefreshToken,
  mintAccessToken,
} from "../sessions/service.ts";
import { completeSignIn } from "../sessions/sign-in.ts";
import { findUser } from "../users/service.ts";
import type { GrantHandler } from "./grant.ts";
import { oauthAuthorizationCodes } from "./schema.ts";

export const AUTHORIZATION_CODE_LIFETIME_MS = 5 * 60 * 1000;
/** Used and expired codes are kept this long, so that a replay is recognised as one, then swept. */
const CODE_RETENTION_MS = 24 * 3600 * 1000;

export async function createAuthorizationCode(
  db: Database,
  input: {
    projectId: string;
    userId: string;
    isNewUser: boolean;
    redirectUri: string;
    codeChallenge: string;
    codeChallengeMethod: "S256" | "plain";
    afterCallbackRedirectUrl: string | null;
    /** A cross-domain hand-off: the session's refresh token, which the exchange answers. */
    handoffRefreshToken?: string;
  },
): Promise<string> {
  const code = randomHex(32);
  const now = Date.now();
  const { handoffRefreshToken, ...values } = input;
  await db
    .delete(oauthAuthorizationCodes)
    .where(lt(oauthAuthorizationCodes.expiresAt, new Date(now - CODE_RETENTION_MS)));
  await db.insert(oauthAuthorizationCodes).values({
    codeHash: sha256Hex(code),
    ...values,
    handoffRefreshToken:
      handoffRefreshToken === undefined ? null : encryptSecret(handoffRefreshToken, handoffKey(code)),
    expiresAt: new Date(now + AUTHORIZATION_CODE_LIFETIME_MS),
  });
  return code;
}

/** The key of a hand-off code's stored refresh token: derived from the code, which only its holder knows. */
const handoffKey = (code: string) => ({ masterSecret: code, purpose: "cross-domain-handoff" });

/** RFC 7636 §4.6. */
function pkceMatches(method: "S256" | "plain", challenge: string, verifier: string): boolean {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  const computed = method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
  return constantTimeEqual(computed, challenge);
}

const stripHash = (url: string) => url.split("#")[0]!;

/** `grant_type=authorization_code`: the code our callback (or the cross-domain route) gave the app. */
export const authorizationCodeGrant: GrantHandler = async ({
  deps,
  project,
  config,
  params,
  clientIp,
  userAgent,
}) => {
  const invalidCode = () => knownError("INVALID_AUTHORIZATION_CODE");
  const code = params.code ?? "";
  if (!/^[0-9a-f]{64}$/.test(code)) throw invalidCode();
  const [row] = await deps.db
    .select()
    .from(oauthAuthorizationCodes)
    .where(
      and(
        eq(oauthAuthorizationCodes.projectId, project.id),
        eq(oauthAuthorizationCodes.codeHash, sha256Hex(code)),
      ),
    )
    .limit(1);
  if (!row) throw invalidCode();
  if (row.usedAt) {
    // RFC 6749 §4.1.2: someone else may hold the code; the session it already produced is no longer trusted.
    if (row.refreshTokenHash) {
      await deleteSessionByRefreshTokenHash(deps.db, project.id, row.refreshTokenHash);
    }
    throw invalidCode();
  }
  if (row.expiresAt.getTime() <= Date.now()) throw invalidCode();
  if (!params.redirect_uri || stripHash(params.redirect_uri) !== row.redirectUri) {
    throw new StatusError(400, "redirect_uri does not match the redirect_uri of the authorization request.");
  }
  if (
    !params.code_verifier ||
    !pkceMatches(row.codeChallengeMethod, row.codeChallenge, params.code_verifier)
  ) {
    throw invalidCode();
  }

  // Claim the code; of two concurrent exchanges only one gets here.
  const claimed = await deps.db
    .update(oauthAuthorizationCodes)
    .set({ usedAt: new Date(), handoffRefreshToken: null })
    .where(and(eq(oauthAuthorizationCodes.codeHash, row.codeHash), isNull(oauthAuthorizationCodes.usedAt)))
    .returning({ codeHash: oauthAuthorizationCodes.codeHash });
  if (claimed.length === 0) throw invalidCode();

  if (row.handoffRefreshToken !== null) {
    return handedOffSession(
      deps,
      project.id,
      config,
      decryptSecret(row.handoffRefreshToken, handoffKey(code)),
      {
        userId: row.userId,
        afterCallbackRedirectUrl: row.afterCallbackRedirectUrl,
      },
    );
  }
  const user = await findUser(deps.db, project.id, row.userId);
  if (!user) throw invalidCode();
  const result = await completeSignIn(deps, {
    projectId: project.id,
    config,
    user,
    isNewUser: row.isNewUser,
    ip: clientIp,
    userAgent,
  });
  await deps.db
    .update(oauthAuthorizationCodes)
    .set({ refreshTokenHash: sha256Hex(result.refresh_token) })
    .where(eq(oauthAuthorizationCodes.codeHash, row.codeHash));
  return {
    access_token: result.access_token,
    refresh_token: result.refresh_token,
    token_type: "Bearer",
    // oauth4webapi only needs a number here; the JWT's own `exp` is what clients trust.
    expires_in: deps.env.accessTokenTtlSeconds,
    scope: "legacy",
    is_new_user: result.is_new_user,
    newUser: result.is_new_user,
    afterCallbackRedirectUrl: row.afterCallbackRedirectUrl,
    after_callback_redirect_url: row.afterCallbackRedirectUrl,
  } satisfies WireOAuthTokenResponse;
};

/**
 * The token response of a hand-off: the handing-off session's own refresh token (no new session), its expiry reset to
 * a year, and a fresh access token of it. A session ended since the code was made leaves nothing to hand over.
 */
async function handedOffSession(
  deps: AppDeps,
  projectId: string,
  config: RenderedConfig,
  refreshToken: string,
  code: { userId: string; afterCallbackRedirectUrl: string | null },
): Promise<Record<string, unknown>> {
  const found = await findSessionByRefreshToken(deps.db, projectId, refreshToken);
  if (!found || found.user.id !== code.userId) throw knownError("INVALID_AUTHORIZATION_CODE");
  if (!(await renewSession(deps.db, projectId, found.session.id)))
    throw knownError("INVALID_AUTHORIZATION_CODE");
  return {
    access_token: await mintAccessToken(deps, projectId, found.user, found.session.id, config),
    refresh_token: refreshToken,
    token_type: "Bearer",
    expires_in: deps.env.accessTokenTtlSeconds,
    scope: "legacy",
    is_new_user: false,
    newUser: false,
    afterCallbackRedirectUrl: code.afterCallbackRedirectUrl,
    after_callback_redirect_url: code.afterCallbackRedirectUrl,
  };
}
