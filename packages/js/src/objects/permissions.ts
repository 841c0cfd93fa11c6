import type { WireList, WirePermissionDefinition, WireProjectPermission } from "@gatehouse/shared";
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

export async function grantPermission(
  scope: Scope,
  userId: string,
  team: PermissionScope,
  permissionId: string,
) {
  const path = team
    ? `/team-permissions/${seg(team.id)}/${seg(userId)}/${seg(permissionId)}`
    : `/project-permissions/${seg(userId)}/${seg(permissionId)}`;
  await call(scope, path, { method: "POST", body: {} });
  scope.ctx.invalidateUserData();
}

export async function revokePermission(
  scope: Scope,
  userId: string,
  team: PermissionScope,
  permissionId: string,
) {
  const path = team
    ? `/team-permissions/${seg(team.id)}/${seg(userId)}/${seg(permissionId)}`
    : `/project-permissions/${seg(userId)}/${seg(permissionId)}`;
  await call(scope, path, { method: "DELETE" });
  scope.ctx.invalidateUserData();
}

/** Overloads of the reference: `(team, id)` or `(id)`. */
export function splitPermissionArgs<T>(
  first: { id: string } | string | undefined,
  rest: T,
): [PermissionScope, string | undefined, T] {
  return typeof first === "string" ? [undefined, first, rest] : [first, undefined, rest];
}

function definitionFromJson(json: WirePermissionDefinition): PermissionDefinition {
  return {
    id: json.id,
    ...(json.description !== undefined ? { description: json.description } : {}),
    containedPermissionIds: json.contained_permission_ids ?? [],
  };
}

function definitionToWire(options: PermissionDefinitionUpdateOptions) {
  return Object.fromEntries(
    Object.entries({
      id: options.id,
      description: options.description,
      contained_permission_ids: options.containedPermissionIds,
    }).filter(([, value]) => value !== undefined),
  );
}

/** Admin: permission definitions of one kind (`team` or `project`). */
export function permissionDefinitions(scope: Scope, kind: "team" | "project") {
  const base = `/${kind}-permission-definitions`;
  return {
    async list(): Promise<PermissionDefinition[]> {
      const result = await call<WireList<WirePermissionDefinition>>(scope, base);
      return result.items.map(definitionFromJson);
    },
    async create(options: PermissionDefinitionCreateOptions): Promise<PermissionDefinition> {
      return definitionFromJson(
        await call<WirePermissionDefinition>(scope, base, {
          method: "POST",
          body: definitionToWire(options),
        }),
      );
    },
    async update(id: string, options: PermissionDefinitionUpdateOptions): Promise<void> {
      await call(scope, `${base}/${seg(id)}`, { method: "PATCH", body: definitionToWire(options) });
    },
    async delete(id: string): Promise<void> {
      await call(scope, `${base}/${seg(id)}`, { method: "DELETE" });
    },
  };
}
