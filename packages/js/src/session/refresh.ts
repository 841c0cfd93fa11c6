import { isKnownError } from "@gatehouse/shared";
import type { ApiClient } from "../http/api-client.ts";
import { InvalidServerResponseError } from "../http/errors.ts";
import type { Refresher } from "./session.ts";

/** What the token endpoint takes as client secret when the app has no publishable key (PROTOCOL.md §4.6). */
export const NO_PUBLISHABLE_KEY_SENTINEL = "__stack_public_client__";

/**
 * The refresh grant of `POST /auth/oauth/token`, form-encoded like an OAuth client sends it and without x-stack
 * headers. A REFRESH_TOKEN_ERROR answer means the session is over: null, not an exception.
 */
export function createRefresher(api: ApiClient): Refresher {
  return async (refreshToken) => {
    let response: Awaited<ReturnType<ApiClient["request"]>>;
    try {
      response = await api.request("/auth/oauth/token", {
        method: "POST",
        protocolHeaders: false,
        // Refresh tokens are not rotated, so a refresh that reached the server can safely be sent again.
        idempotent: true,
        form: {
          grant_type: "refresh_token",
          refresh_token: refreshToken,
          client_id: api.config.projectId,
          client_secret: api.config.publishableClientKey ?? NO_PUBLISHABLE_KEY_SENTINEL,
        },
      });
    } catch (error) {
      if (isKnownError(error, "REFRESH_TOKEN_ERROR")) return null;
      throw error;
    }
    const body = response.body as Record<string, unknown> | string;
    if (
      response.status !== 200 ||
      typeof body !== "object" ||
      typeof body.access_token !== "string" ||
      typeof body.token_type !== "string" ||
      body.token_type.toLowerCase() !== "bearer" ||
      ("expires_in" in body && typeof body.expires_in !== "number") ||
      ("scope" in body && typeof body.scope !== "string")
    ) {
      throw new InvalidServerResponseError(
        "The token endpoint answered with an invalid OAuth token response.",
      );
    }
    return body.access_token;
  };
}
