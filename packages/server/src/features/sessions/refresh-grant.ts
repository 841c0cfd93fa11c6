import { knownError } from "@gatehouse/shared";
import type { GrantHandler } from "../oauth/grant.ts";
import { refreshSession } from "./service.ts";

/** `grant_type=refresh_token` at the OAuth token endpoint: a new access token for a live session. */
export const refreshTokenGrant: GrantHandler = async ({
  deps,
  project,
  config,
  params,
  clientIp,
  userAgent,
}) => {
  const accessToken = params.refresh_token
    ? await refreshSession(deps, project.id, params.refresh_token, config, clientIp, userAgent)
    : null;
  if (!accessToken) throw knownError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
  return {
    access_token: accessToken,
    token_type: "Bearer",
    // oauth4webapi only needs a number here; the JWT's own `exp` is what clients trust.
    expires_in: deps.env.accessTokenTtlSeconds,
    scope: "legacy",
    afterCallbackRedirectUrl: null,
    after_callback_redirect_url: null,
  };
};
