import type { WireList, WireProjectPermission } from "@gatehouse/shared";
import { call, type Scope, seg, withQuery } from "./scope.ts";

/** A permission a user holds, in a team or project-wide (PROTOCOL.md §3.11). */
export type TeamPermission = { id: string };

export type PermissionDefinition = { id: string; description?: string; containedPermissionIds: string[] };
export type PermissionDefinitionCreateOptions = {
  id: string;
  description?: string;
  containedPermissionIds?: string[];
};
export type PermissionDefinitionUpdateOptions = Partial<PermissionDefinitionCreateOptions>;

/** A team, or `undefined` for project permissions. */
export type PermissionScope = { id: string } | undefined;

export async function listPermissions(
  scope: Scope,
  userId: string,
  team: PermissionScope,
  options: { recursive?: boolean } = {},
): Promise<TeamPermission[]> {
  const recursive = options.recursive ?? true;
  const path = team
    ? withQuery("/team-permissions", { team_id: team.id, user_id: userId, recursive })
    : withQuery("/project-permissions", { user_id: userId, recursive });
  // Team permissions carry team_id too; only the id is read.
  const result = await call<WireList<WireProjectPermission>>(scope, path);
  return result.items.map((item) => ({ id: item.id }));
}

/** The path of one user's permission: in a team, or project-wide when `team` is null. */
function permissionPath(userId: string, team: PermissionScope, permissionId: string): string {
  return team
    ? `/team-permissions/${seg(team.id)}/${seg(userId)}/${seg(permissionId)}`
    : `/project-permissions/${seg(userId)}/${seg(permissionId)}`;
}

export async function grantPermission(
  scope: Scope,
  userId: string,
  team: PermissionScope,
  permissionId: string,
) {
  await call(scope, permissionPath(userId, team, permissionId), { method: "POST", body: {} });
  scope.ctx.invalidateUserData();
}

export async function revokePermission(
  scope: Scope,
  userId: string,
  team: PermissionScope,
  permissionId: string,
) {
  await call(scope, permissionPath(userId, team, permissionId), { method: "DELETE" });
  scope.ctx.invalidateUserData();
}

/** Overloads of the reference: `(team, id)` or `(id)`. */
export function splitPermissionArgs<T>(
  first: { id: string } | string | undefined,
  rest: T,
): [PermissionScope, string | undefined, T] {
  return typeof first === "string" ? [undefined, first, rest] : [first, undefined, rest];
}
