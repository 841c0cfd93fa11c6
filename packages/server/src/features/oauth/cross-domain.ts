/**
 * `POST /auth/oauth/cross-domain/authorize` (PROTOCOL.md §4.7, "less central"): a user signed in on one trusted
 * domain of the project hands the session over to another trusted domain. The caller's session mints an ordinary
 * authorization code (same table, lifetime and hashing as the callback's codes) bound to the user, the redirect URI
 * and an S256 challenge whose verifier only the receiving page knows; that page exchanges it at
 * `POST /auth/oauth/token` (`grant_type=authorization_code`) for a new session of the same user.
 */
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import { isUrlTrustedByProject } from "../../config/trusted-urls.ts";
import { requireUser } from "../../http/current-user.ts";
import { defineRoute } from "../../http/route.ts";
import { PKCE_VALUE } from "./authorize.ts";
import { createAuthorizationCode } from "./code-grant.ts";

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
      state: z.string().min(1).max(2048),
      code_challenge: z
        .string()
        .regex(PKCE_VALUE, { error: "must be 43 to 128 characters of [A-Za-z0-9-._~]" }),
      // The verifier travels through the browser; only S256 keeps it from being readable off the URL.
      code_challenge_method: z.literal("S256"),
      after_callback_redirect_url: z.string().min(1).max(2048).optional(),
    }),
  },
  response: { body: z.object({ redirect_url: z.string() }) },
  handler: async ({ deps, auth, body }) => {
    const user = requireUser(auth);
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
    });
    const redirectUrl = new URL(redirectUri);
    redirectUrl.searchParams.set("code", code);
    redirectUrl.searchParams.set("state", body.state);
    return { body: { redirect_url: redirectUrl.toString() } };
  },
});
