/**
 * `POST /auth/oauth/cross-domain/authorize` (PROTOCOL.md §4.7, PROTOCOL-EXTRA.md §8.2): a user signed in on one
 * trusted domain of the project hands the session over to another trusted domain. The caller proves the session
 * with its refresh token (`x-stack-refresh-token`) next to the access token, and gets an ordinary authorization
 * code (same table, lifetime and hashing as the callback's codes) bound to the user, the redirect URI and an S256
 * challenge whose verifier only the receiving page knows; that page exchanges it at `POST /auth/oauth/token`
 * (`grant_type=authorization_code`) for that same session's refresh token, as the reference does.
 */
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import { isUrlTrustedByProject } from "../../config/trusted-urls.ts";
import type { Database } from "../../db/index.ts";
import { requireUser } from "../../http/current-user.ts";
import { readProtocolHeader } from "../../http/protocol-headers.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { findSessionOfRefreshToken, isSessionExpired } from "../sessions/handoff.ts";
import { PKCE_VALUE } from "./authorize.ts";
import { createAuthorizationCode } from "./code-grant.ts";

/**
 * The caller's refresh token, which must be its access token's session's (§8.2's checks, in its order): only a
 * session that proves itself this way is handed over, not whatever a stolen access token could vouch for.
 */
async function handedOffRefreshToken(db: Database, auth: RequestAuth, headers: Headers): Promise<string> {
  const user = requireUser(auth);
  const sessionId = auth.accessToken?.refresh_token_id;
  if (!sessionId) {
    throw new StatusError(
      400,
      "Cross-domain auth handoff requires a refresh-token-bound session. Please sign in again.",
    );
  }
  const refreshToken = readProtocolHeader(headers, "refresh-token");
  if (!refreshToken) {
    throw new StatusError(400, "Cross-domain auth handoff requires passing the current refresh token.");
  }
  const session = await findSessionOfRefreshToken(db, auth.project.id, refreshToken);
  if (!session || session.id !== sessionId || session.userId !== user.id) {
    throw new StatusError(
      401,
      "Cross-domain auth handoff refresh token does not match the authenticated session.",
    );
  }
  if (isSessionExpired(session)) {
    throw new StatusError(401, "Cross-domain auth handoff refresh token is not valid.");
  }
  return refreshToken;
}

/** REDIRECT_URL_NOT_WHITELISTED unless the URL is absolute and on the project's trusted domains. */
function assertTrustedAbsoluteUrl(config: RenderedConfig, url: string): void {
  // A relative URL would pass the trust check (it stays on the current site) but says nothing about which site.
  if (!URL.canParse(url) || !isUrlTrustedByProject(config, url))
    throw knownError("REDIRECT_URL_NOT_WHITELISTED");
}

export const crossDomainAuthorizeRoute = defineRoute({
  method: "POST",
  path: "/auth/oauth/cross-domain/authorize",
  summary:
    "Hand the signed-in user's session to another trusted domain: an authorization code for its redirect URI",
  tags: ["OAuth"],
  access: ["client", "server", "admin"],
  request: {
    body: z.strictObject({
      redirect_uri: z.string().min(1).max(2048),
      state: z.string().min(1).max(512),
      code_challenge: z
        .string()
        .regex(PKCE_VALUE, { error: "must be 43 to 128 characters of [A-Za-z0-9-._~]" }),
      // The verifier travels through the browser; only S256 keeps it from being readable off the URL.
      code_challenge_method: z.literal("S256").optional(),
      after_callback_redirect_url: z.string().min(1).max(2048).optional(),
    }),
  },
  response: { body: z.object({ redirect_url: z.string() }) },
  handler: async ({ deps, auth, body, request }) => {
    const user = requireUser(auth);
    const refreshToken = await handedOffRefreshToken(deps.db, auth, request.headers);
    // Kept as sent (less any fragment), as the authorize endpoint does: the exchange compares it verbatim.
    const redirectUri = body.redirect_uri.split("#")[0]!;
    assertTrustedAbsoluteUrl(auth.config, redirectUri);
    if (body.after_callback_redirect_url !== undefined) {
      assertTrustedAbsoluteUrl(auth.config, body.after_callback_redirect_url);
    }
    const code = await createAuthorizationCode(deps.db, {
      projectId: auth.project.id,
      userId: user.id,
      isNewUser: false,
      redirectUri,
      codeChallenge: body.code_challenge,
      codeChallengeMethod: "S256",
      afterCallbackRedirectUrl: body.after_callback_redirect_url ?? null,
      handoffRefreshToken: refreshToken,
    });
    const redirectUrl = new URL(redirectUri);
    redirectUrl.searchParams.set("code", code);
    redirectUrl.searchParams.set("state", body.state);
    return { body: { redirect_url: redirectUrl.toString() } };
  },
});
