import { knownError } from "@gatehouse/shared";
import type { RenderedConfig } from "../config/index.ts";
import type { AccessTokenClaims } from "../crypto/index.ts";
import type { AppDeps } from "../deps.ts";
import { hasLiveKey, type ProjectKeyKind } from "../features/project-keys/keys.ts";
import type { ProjectApiKeySetRow } from "../features/project-keys/schema.ts";
import { userManagesProject } from "../features/projects/ownership.ts";
import type { ProjectRow } from "../features/projects/schema.ts";
import type { UserRow } from "../features/users/schema.ts";
import { findUser } from "../features/users/service.ts";
import type { UserRelations } from "../features/users/user-with-relations.ts";
import { findUserWithRelations } from "../features/users/user-with-relations.ts";
import { type AccessType, isAccessType } from "./access-type.ts";
import { readProtocolHeader } from "./protocol-headers.ts";
import { StatusError } from "./status-error.ts";

/** Who is calling: the project, the access level, and the signed-in user if an access token came along. */
export type RequestAuth = {
  project: ProjectRow;
  config: RenderedConfig;
  branchId: string;
  accessType: AccessType;
  /** The end user of the access token; null without a token or when that user was deleted. */
  user: UserRow | null;
  /** What the user's view needs beyond the row (read with it, in one statement), so `/users/me` reads nothing more. */
  userRelations: UserRelations | null;
  /** The verified access token claims, when one was sent. */
  accessToken: AccessTokenClaims | null;
  /** The internal-project user acting through an admin access token (PROTOCOL.md §6), if any. */
  projectOwner: UserRow | null;
};

/**
 * Who acts within the project, as a key for what belongs to them (AI conversations, proposals) and for per-owner
 * rate limits: the owner behind an admin access token, or the project's admin key.
 */
export function ownerKeyOf(auth: Pick<RequestAuth, "projectOwner">): string {
  return auth.projectOwner ? `user:${auth.projectOwner.id}` : "admin-key";
}

const KEY_HEADERS = [
  "publishable-client-key",
  "secret-server-key",
  "super-secret-admin-key",
  "admin-access-token",
] as const;

/**
 * Resolves the caller from the protocol headers, in the order of PROTOCOL.md §1.2.
 * Returns null when no access type is given (the request is anonymous at project level).
 */
export async function resolveRequestAuth(deps: AppDeps, headers: Headers): Promise<RequestAuth | null> {
  const header = (name: Parameters<typeof readProtocolHeader>[1]) => readProtocolHeader(headers, name);

  // 1-2. Access type and project id.
  const accessTypeHeader = header("access-type");
  if (accessTypeHeader === undefined) {
    if (KEY_HEADERS.some((name) => header(name))) throw knownError("PROJECT_KEY_WITHOUT_ACCESS_TYPE");
    return null;
  }
  if (!isAccessType(accessTypeHeader)) throw knownError("INVALID_ACCESS_TYPE");
  const accessType = accessTypeHeader;
  const projectId = header("project-id");
  if (!projectId) throw knownError("ACCESS_TYPE_WITHOUT_PROJECT_ID", { request_type: accessType });
  const branchId = header("branch-id") || "main";

  // 3. The end user's access token, checked before anything touches the database.
  const allowAnonymous = header("allow-anonymous-user") === "true";
  const allowRestricted = allowAnonymous || header("allow-restricted-user") === "true";
  let accessToken: AccessTokenClaims | null = null;
  const accessTokenHeader = header("access-token");
  if (accessTokenHeader) {
    const result = await deps.keyring.verifyAccessToken(accessTokenHeader, {
      allowAnonymous,
      allowRestricted,
    });
    if (!result.ok) {
      switch (result.reason) {
        case "expired":
          throw knownError("ACCESS_TOKEN_EXPIRED", {
            expired_at_millis: result.expiredAtMillis ?? null,
            project_id: result.decoded.projectId,
            user_id: result.decoded.userId,
            refresh_token_id: result.decoded.refreshTokenId,
          });
        case "anonymous_not_allowed":
          throw knownError("ANONYMOUS_AUTHENTICATION_NOT_ALLOWED");
        case "restricted_not_allowed":
          throw knownError("RESTRICTED_USER_NOT_ALLOWED", {
            restricted_reason: result.restrictedReason ?? { type: "email_not_verified" },
          });
        default:
          throw unparsableTokenError("UNPARSABLE_ACCESS_TOKEN", result.mismatch);
      }
    }
    if (result.claims.project_id !== projectId) {
      throw knownError("INVALID_PROJECT_FOR_ACCESS_TOKEN", {
        expected_project_id: projectId,
        actual_project_id: result.claims.project_id,
      });
    }
    accessToken = result.claims;
  }

  // 4. The project, from the process's cache (features/projects/project-cache.ts).
  const cached = await deps.projectCache.get(projectId);
  if (!cached) throw knownError("CURRENT_PROJECT_NOT_FOUND", { project_id: projectId });
  const { project, config } = cached;

  // 5. Keys, or an admin access token instead of keys.
  let projectOwner: UserRow | null = null;
  const adminAccessToken = header("admin-access-token");
  const developmentOverrideKey = header("development-override-key");
  if (developmentOverrideKey && deps.env.isDevelopment) {
    const internal = await deps.projectCache.get("internal");
    if (!internal || !hasLiveKey(internal.keySets, "super_secret_admin_key", developmentOverrideKey)) {
      throw knownError("INVALID_SUPER_SECRET_ADMIN_KEY", { project_id: "internal" });
    }
  } else if (adminAccessToken) {
    projectOwner = await checkAdminAccessToken(deps, adminAccessToken, project);
  } else {
    checkProjectKey(project, config, cached.keySets, accessType, headers);
  }

  // 6. Branches: only `main` exists. Checked after the keys so that branch names cannot be probed.
  if (branchId !== "main") throw knownError("BRANCH_DOES_NOT_EXIST", { branch_id: branchId });

  // 7. The user behind the access token; a deleted user simply leaves `user` empty.
  const found = accessToken ? await findUserWithRelations(deps.db, project.id, accessToken.sub) : null;

  return {
    project,
    config,
    branchId,
    accessType,
    user: found?.user ?? null,
    userRelations: found?.relations ?? null,
    accessToken,
    projectOwner,
  };
}

const keyRules: Record<
  AccessType,
  { header: ProjectKeyKind; missing: () => Error; invalid: (projectId: string) => Error }
> = {
  client: {
    header: "publishable_client_key",
    missing: () => new Error("unreachable"),
    invalid: (projectId) => knownError("INVALID_PUBLISHABLE_CLIENT_KEY", { project_id: projectId }),
  },
  server: {
    header: "secret_server_key",
    missing: () => knownError("SERVER_AUTHENTICATION_REQUIRED"),
    invalid: (projectId) => knownError("INVALID_SECRET_SERVER_KEY", { project_id: projectId }),
  },
  admin: {
    header: "super_secret_admin_key",
    missing: () => knownError("ADMIN_AUTHENTICATION_REQUIRED"),
    invalid: (projectId) => knownError("INVALID_SUPER_SECRET_ADMIN_KEY", { project_id: projectId }),
  },
};

/** The value the official SDK sends for "no publishable key". */
export const NO_PUBLISHABLE_KEY_SENTINEL = "__stack_public_client__";

function checkProjectKey(
  project: ProjectRow,
  config: RenderedConfig,
  keySets: readonly ProjectApiKeySetRow[],
  accessType: AccessType,
  headers: Headers,
): void {
  const rule = keyRules[accessType];
  const key = readProtocolHeader(headers, rule.header.replaceAll("_", "-") as "secret-server-key");
  if (accessType === "client") {
    const noKey = !key || key === NO_PUBLISHABLE_KEY_SENTINEL;
    if (noKey) {
      if (config.project.requirePublishableClientKey) {
        throw knownError("PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", { project_id: project.id });
      }
      return;
    }
  } else if (!key) {
    throw rule.missing();
  }
  if (!hasLiveKey(keySets, rule.header, key!)) throw rule.invalid(project.id);
}

/**
 * The protocol's error for a token that does not verify, its message followed by the likely cause when the token
 * came from an instance configured differently (crypto/access-tokens.ts); the code stays the one clients know.
 */
export function unparsableTokenError(
  code: "UNPARSABLE_ACCESS_TOKEN" | "UNPARSABLE_ADMIN_ACCESS_TOKEN",
  mismatch: string | undefined,
) {
  const error = knownError(code);
  return mismatch ? knownError(code, undefined, `${error.message} ${mismatch}`) : error;
}

/** PROTOCOL.md §6: an internal-project user's access token stands in for the project's keys. */
async function checkAdminAccessToken(deps: AppDeps, token: string, project: ProjectRow): Promise<UserRow> {
  const result = await deps.keyring.verifyAccessToken(token, {
    allowAnonymous: false,
    allowRestricted: false,
  });
  if (!result.ok) {
    if (result.reason === "expired") {
      throw knownError("ADMIN_ACCESS_TOKEN_EXPIRED", { expired_at_millis: result.expiredAtMillis ?? null });
    }
    if (result.reason === "unparsable") {
      throw unparsableTokenError("UNPARSABLE_ADMIN_ACCESS_TOKEN", result.mismatch);
    }
    throw knownError("ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN");
  }
  if (result.claims.project_id !== "internal") throw knownError("ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN");
  const owner = await findUser(deps.db, "internal", result.claims.sub);
  if (!owner) throw new StatusError(401, "The user of this admin access token no longer exists.");
  if (!(await userManagesProject(deps.db, owner.id, project)))
    throw knownError("ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN");
  return owner;
}
