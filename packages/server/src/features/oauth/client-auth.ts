import { knownError } from "@gatehouse/shared";
import type { RenderedConfig } from "../../config/index.ts";
import type { AppDeps } from "../../deps.ts";
import { NO_PUBLISHABLE_KEY_SENTINEL, unparsableTokenError } from "../../http/request-auth.ts";
import { hasLiveKey } from "../project-keys/keys.ts";
import type { ProjectRow } from "../projects/schema.ts";
import type { UserRow } from "../users/schema.ts";
import { findUser } from "../users/service.ts";

/**
 * The OAuth client of `/auth/oauth/authorize`: the project is the client id (optionally `<projectId>#<branchId>`),
 * the client secret its publishable key or the sentinel. The same rules as the token endpoint.
 */
export async function authenticateOAuthClient(
  deps: AppDeps,
  clientId: string,
  clientSecret: string | undefined,
  /**
   * At the token endpoint a wrong secret is an OAuth client error; on authorize, where the secret is the project's
   * publishable key in a URL, the reference answers as for any request with a wrong key.
   */
  wrongSecret: "oauth-client" | "publishable-key" = "oauth-client",
): Promise<{ project: ProjectRow; config: RenderedConfig }> {
  const [projectId, branchId = "main"] = clientId.split("#");
  const cached = projectId ? await deps.projectCache.get(projectId) : null;
  if (!cached || branchId !== "main")
    throw knownError("INVALID_OAUTH_CLIENT_ID_OR_SECRET", { client_id: clientId });
  const { project, config } = cached;
  if (!clientSecret || clientSecret === NO_PUBLISHABLE_KEY_SENTINEL) {
    if (config.project.requirePublishableClientKey) {
      throw knownError("PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", { project_id: project.id });
    }
  } else if (!hasLiveKey(cached.keySets, "publishable_client_key", clientSecret)) {
    if (wrongSecret === "publishable-key") {
      throw knownError("INVALID_PUBLISHABLE_CLIENT_KEY", { project_id: project.id });
    }
    throw knownError("INVALID_OAUTH_CLIENT_ID_OR_SECRET", { client_id: clientId });
  }
  return { project, config };
}

/**
 * The user behind the `token` parameter of the authorize request (the app's current access token), checked like
 * `x-stack-access-token` with anonymous users allowed: linking needs it, and anonymous users get upgraded.
 */
export async function userOfAccessToken(deps: AppDeps, projectId: string, token: string): Promise<UserRow> {
  const result = await deps.keyring.verifyAccessToken(token, { allowAnonymous: true, allowRestricted: true });
  if (!result.ok) {
    if (result.reason === "expired") {
      throw knownError("ACCESS_TOKEN_EXPIRED", {
        expired_at_millis: result.expiredAtMillis,
        project_id: result.decoded.projectId,
        user_id: result.decoded.userId,
        refresh_token_id: result.decoded.refreshTokenId,
      });
    }
    throw unparsableTokenError(
      "UNPARSABLE_ACCESS_TOKEN",
      result.reason === "unparsable" ? result.mismatch : undefined,
    );
  }
  if (result.claims.project_id !== projectId) {
    throw knownError("INVALID_PROJECT_FOR_ACCESS_TOKEN", {
      expected_project_id: projectId,
      actual_project_id: result.claims.project_id,
    });
  }
  const user = await findUser(deps.db, projectId, result.claims.sub);
  if (!user) throw knownError("USER_NOT_FOUND");
  return user;
}
