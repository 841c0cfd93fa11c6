/**
 * Who may manage which API keys (PROTOCOL-EXTRA.md §8.5). Servers and admins manage any key of the project. A client
 * manages its own user's keys (anyone else's: a plain 403), and a team's keys when it holds `$manage_api_keys` in
 * that team, directly or through containment (else the key, or the team's keys, are "not found").
 */
import type { WireApiKey } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { and, eq } from "drizzle-orm";
import type { UserOrTeamApiKeyType } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { requireUser, resolveUserId } from "../../http/current-user.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { StatusError } from "../../http/status-error.ts";
import { hasTeamPermission } from "../permissions/service.ts";
import { teams } from "../teams/schema.ts";
import { findUser } from "../users/service.ts";
import type { UserTeamApiKeyRow } from "./schema.ts";
import type { ApiKeyOwner } from "./service.ts";

export const MANAGE_API_KEYS_PERMISSION = "$manage_api_keys";

export function requireEnabled(auth: RequestAuth, type: UserOrTeamApiKeyType): void {
  if (!auth.config.apiKeys.enabled[type]) {
    throw new StatusError(
      400,
      `${type === "user" ? "User" : "Team"} API keys are not enabled for this project.`,
    );
  }
}

export function apiKeyNotFound(): never {
  throw knownError("API_KEY_NOT_FOUND");
}

function refuseOthersKeys(): never {
  throw new StatusError(403, "Client can only manage their own api keys");
}

/** A client's user, who must be the one named (`me` or its own id). */
function clientOwnUserId(auth: RequestAuth, named: string): string {
  if (named === "me") return resolveUserId(auth, named);
  if (named !== requireUser(auth).id) refuseOthersKeys();
  return named;
}

function clientManagesTeamKeys(db: Database, auth: RequestAuth, userId: string, teamId: string) {
  return hasTeamPermission(db, {
    projectId: auth.project.id,
    teamId,
    userId,
    permissionId: MANAGE_API_KEYS_PERMISSION,
    config: auth.config,
  });
}

/** Resolves and authorises the owner named by a create or list request. */
export async function authorizeOwner(
  db: Database,
  auth: RequestAuth,
  type: UserOrTeamApiKeyType,
  input: { userId?: string; teamId?: string },
): Promise<ApiKeyOwner> {
  if (type === "user") {
    const userId =
      auth.accessType === "client"
        ? clientOwnUserId(auth, input.userId!)
        : resolveUserId(auth, input.userId!);
    if (auth.accessType !== "client" && !(await findUser(db, auth.project.id, userId))) {
      throw knownError("USER_NOT_FOUND");
    }
    return { type, userId };
  }
  const teamId = input.teamId!;
  if (auth.accessType === "client") {
    const user = requireUser(auth);
    // Non-members and members without the permission get the same answer, so membership is not revealed.
    if (!(await clientManagesTeamKeys(db, auth, user.id, teamId))) apiKeyNotFound();
    return { type, teamId };
  }
  const [team] = await db
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.projectId, auth.project.id), eq(teams.id, teamId)))
    .limit(1);
  if (!team) throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
  return { type, teamId };
}

/**
 * For reading or changing one key: another user's key is a client's plain 403, a team key it may not manage does
 * not exist for it, and neither does a key for anyone naming an owner (`user_id` / `team_id` in the query) that is
 * not the key's.
 */
export async function authorizeKey(
  db: Database,
  auth: RequestAuth,
  row: UserTeamApiKeyRow,
  named: { user_id?: string | undefined; team_id?: string | undefined },
): Promise<void> {
  // A client is told first whether the key is its to touch, whatever owner the query names.
  if (auth.accessType === "client") {
    const user = requireUser(auth);
    if (row.type === "user" && row.userId !== user.id) refuseOthersKeys();
    if (row.type === "team" && !(await clientManagesTeamKeys(db, auth, user.id, row.teamId!)))
      apiKeyNotFound();
  }
  if (named.user_id !== undefined) {
    const userId = named.user_id === "me" ? auth.user?.id : named.user_id;
    if (userId !== row.userId) apiKeyNotFound();
  }
  if (named.team_id !== undefined && named.team_id !== row.teamId) apiKeyNotFound();
}

export function toView(row: UserTeamApiKeyRow): WireApiKey {
  const fields = {
    id: row.id,
    description: row.description,
    ...(row.expiresAt ? { expires_at_millis: row.expiresAt.getTime() } : {}),
    ...(row.manuallyRevokedAt ? { manually_revoked_at_millis: row.manuallyRevokedAt.getTime() } : {}),
    created_at_millis: row.createdAt.getTime(),
    is_public: row.isPublic,
    value: { last_four: row.lastFour },
  };
  return row.type === "user"
    ? { ...fields, type: "user", user_id: row.userId! }
    : { ...fields, type: "team", team_id: row.teamId! };
}
