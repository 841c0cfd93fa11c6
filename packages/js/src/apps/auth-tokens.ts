import { isKnownError } from "@gatehouse/shared";
import type { Session } from "../session/session.ts";
import type { AppContext } from "./context.ts";

export type AuthJson = { accessToken: string | null; refreshToken: string | null };

/** The session calls of a signed-in user and of an app (the reference's `AuthLike`). */
export type Auth = {
  /** The session itself, e.g. to build an admin app for a project this user owns. */
  readonly _internalSession: Session;
  readonly currentSession: { getTokens(): Promise<AuthJson> };
  signOut(options?: { redirectUrl?: URL | string }): Promise<void>;
  getAccessToken(): Promise<string | null>;
  getRefreshToken(): Promise<string | null>;
  /** `{"x-stack-auth": JSON}` for requests to your own server, which passes the request as tokenStore. */
  getAuthHeaders(): Promise<{ "x-stack-auth": string }>;
  getAuthJson(): Promise<AuthJson>;
  /** `Bearer stackauth_<base64 JSON>`, or null when signed out. */
  getAuthorizationHeader(): Promise<string | null>;
};

/**
 * Signs out: ends the session on the server, forgets the tokens, then goes to `redirectUrl` or after-sign-out.
 * A session the server no longer knows is as good as ended, so refresh-token errors are ignored.
 */
export async function signOut(
  ctx: AppContext,
  session: Session,
  options: { redirectUrl?: URL | string; noRedirect?: boolean } = {},
): Promise<void> {
  try {
    if (session.hasTokens()) {
      await ctx.call("/auth/sessions/current", { method: "DELETE", body: {}, session });
    }
  } catch (error) {
    if (!isKnownError(error, "REFRESH_TOKEN_ERROR")) throw error;
  } finally {
    session.clear();
    ctx.invalidateUserData();
  }
  if (!options.noRedirect) await ctx.redirector.redirectTo(options.redirectUrl ?? ctx.urls.afterSignOut);
}

export function authFunctions(ctx: AppContext, session: Session): Auth {
  const getAuthJson = async (): Promise<AuthJson> => {
    const tokens = await session.getTokens();
    return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken };
  };
  return {
    _internalSession: session,
    currentSession: { getTokens: getAuthJson },
    signOut: (options) => signOut(ctx, session, options),
    getAccessToken: async () => (await session.getTokens()).accessToken,
    getRefreshToken: async () => (await session.getTokens()).refreshToken,
    getAuthHeaders: async () => ({ "x-stack-auth": JSON.stringify(await getAuthJson()) }),
    getAuthJson,
    async getAuthorizationHeader() {
      const json = await getAuthJson();
      if (json.accessToken === null && json.refreshToken === null) return null;
      return `Bearer stackauth_${btoa(JSON.stringify(json))}`;
    },
  };
}
