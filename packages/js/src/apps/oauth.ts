import type { WireOAuthTokenResponse } from "@gatehouse/shared";
import { isKnownError } from "@gatehouse/shared";
import { isBrowser } from "../http/runtime.ts";
import { readBrowserCookies, setBrowserCookie } from "../session/cookie-store.ts";
import { NO_PUBLISHABLE_KEY_SENTINEL } from "../session/refresh.ts";
import type { Session } from "../session/session.ts";
import type { AppContext } from "./context.ts";
import { currentUrl, WAIT_AFTER_REDIRECT_MS } from "./redirect.ts";
import { completeSignIn, handleMfaRequired } from "./sign-in.ts";
import { absoluteUrl, currentOrigin } from "./urls.ts";

/** How long the PKCE verifier waits in its cookie for the provider to come back (SPEC.md §9). */
export const OAUTH_STATE_COOKIE_MAX_AGE_SECONDS = 3600;
const verifierCookie = (state: string) => `stack-oauth-outer-${state}`;

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function randomString(bytes = 32): string {
  const buffer = new Uint8Array(bytes);
  crypto.getRandomValues(buffer);
  return base64Url(buffer);
}

async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}

/** The current page without the `code` and `state` the provider appended. */
function withoutCodeAndState(url: URL): URL {
  const clean = new URL(url);
  clean.searchParams.delete("code");
  clean.searchParams.delete("state");
  return clean;
}

export type OAuthRedirectOptions = {
  type: "authenticate" | "link";
  returnTo?: string | undefined;
  providerScope?: string | undefined;
};

/**
 * Starts the OAuth flow (PROTOCOL.md §4.7): keeps a PKCE verifier in a cookie named after the state and sends the
 * browser to the authorize endpoint. Linking (and upgrading an anonymous user) passes the current access token.
 */
export async function redirectToOAuth(
  ctx: AppContext,
  session: Session | null,
  provider: string,
  options: OAuthRedirectOptions,
): Promise<void> {
  if (!isBrowser()) throw new Error("Signing in with OAuth needs a browser.");
  const origin = currentOrigin();
  const state = randomString();
  const verifier = randomString(48);
  setBrowserCookie(verifierCookie(state), verifier, OAUTH_STATE_COOKIE_MAX_AGE_SECONDS);

  const url = new URL(`${ctx.api.apiUrl}/auth/oauth/authorize/${encodeURIComponent(provider.toLowerCase())}`);
  const params: Record<string, string> = {
    client_id: ctx.projectId,
    client_secret: ctx.api.config.publishableClientKey ?? NO_PUBLISHABLE_KEY_SENTINEL,
    redirect_uri: absoluteUrl(ctx.urls.oauthCallback, origin, "The OAuth callback URL"),
    scope: "legacy",
    state,
    grant_type: "authorization_code",
    code_challenge: await s256(verifier),
    code_challenge_method: "S256",
    response_type: "code",
    type: options.type,
    error_redirect_url: absoluteUrl(ctx.urls.error, origin, "The error page URL"),
  };
  if (options.returnTo) {
    params.after_callback_redirect_url = absoluteUrl(options.returnTo, origin, "returnTo");
  }
  // Provider scopes only make sense when linking an account for its API access (SPEC.md §5).
  if (options.type === "link" && options.providerScope) params.provider_scope = options.providerScope;
  const accessToken = session ? (await session.getTokens()).accessToken : null;
  if (accessToken) params.token = accessToken;
  else if (options.type === "link") throw new Error("Linking an account needs a signed-in user.");
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);

  // The authorize endpoint lives on the API's origin, so this navigation cannot go through the same-origin check.
  if (ctx.redirector.method === "none") return;
  window.location.assign(url.toString());
  await ctx.runtime.sleep(WAIT_AFTER_REDIRECT_MS);
}

function alertUser(message: string): void {
  if (typeof window !== "undefined" && typeof window.alert === "function") window.alert(message);
}

/**
 * The OAuth callback page: exchanges `code` for tokens with the verifier kept under `state`, strips both from the
 * address and goes on to where the user wanted to be. Without both parameters it does nothing (returns false).
 */
export async function callOAuthCallback(ctx: AppContext): Promise<boolean> {
  const here = currentUrl();
  const code = here?.searchParams.get("code");
  const state = here?.searchParams.get("state");
  if (!here || !code || !state) return false;

  const cookieName = verifierCookie(state);
  const verifier = readBrowserCookies().get(cookieName);
  setBrowserCookie(cookieName, "", 0);
  const clean = withoutCodeAndState(here);
  window.history.replaceState(window.history.state, "", clean.toString());
  if (!verifier) {
    throw new Error(
      "The OAuth flow was interrupted (no verifier for this state); please try signing in again.",
    );
  }

  const session = ctx.persistentSession();
  try {
    const response = await ctx.api.request("/auth/oauth/token", {
      method: "POST",
      protocolHeaders: false,
      form: {
        grant_type: "authorization_code",
        code,
        redirect_uri: absoluteUrl(ctx.urls.oauthCallback, clean.origin, "The OAuth callback URL"),
        code_verifier: verifier,
        client_id: ctx.projectId,
        client_secret: ctx.api.config.publishableClientKey ?? NO_PUBLISHABLE_KEY_SENTINEL,
      },
    });
    // The token endpoint answers a known error or this (the server's code-grant.ts builds it as this type).
    const body = response.body as WireOAuthTokenResponse;
    const returnTo: unknown = body.after_callback_redirect_url ?? body.afterCallbackRedirectUrl;
    await completeSignIn(ctx, session, body, { noRedirect: typeof returnTo === "string" });
    if (typeof returnTo === "string") await ctx.redirector.redirectTo(returnTo);
    return true;
  } catch (error) {
    if (await handleMfaRequired(ctx, error)) return true;
    if (isKnownError(error, "INVALID_TOTP_CODE"))
      alertUser("Invalid TOTP code. Please try signing in again.");
    else alertUser("Error signing in during OAuth callback. Please try again.");
    throw error;
  }
}
