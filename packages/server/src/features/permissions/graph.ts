/**
 * The permission graph, read from the rendered config: which ids exist in which scope, what each contains, and the
 * transitive closure of a set of grants. Pure functions; grants come from the database, definitions from config.
 */
import { knownError } from "@gatehouse/shared";
import {
  isSystemPermissionId,
  type PermissionScope,
  type RenderedConfig,
  SYSTEM_PERMISSION_IDS,
  SYSTEM_PERMISSIONS,
} from "../../config/index.ts";

/** Anything carrying the rbac section: a rendered config, or a draft of one being edited. */
export type RbacHolder = Pick<RenderedConfig, "rbac">;

export type PermissionDefinitionView = {
  id: string;
  description?: string;
  contained_permission_ids: string[];
};

/** The scope an id lives in, or undefined when nothing defines it. System (`$`) permissions are team permissions. */
export function permissionScopeOf(config: RbacHolder, id: string): PermissionScope | undefined {
  if (isSystemPermissionId(id)) return "team";
  return Object.hasOwn(config.rbac.permissions, id) ? config.rbac.permissions[id]!.scope : undefined;
}

/** PERMISSION_NOT_FOUND when nothing defines `id`, WRONG_PERMISSION_SCOPE when it lives in the other scope. */
export function assertPermissionInScope(config: RbacHolder, id: string, scope: PermissionScope): void {
  const actual = permissionScopeOf(config, id);
  if (actual === undefined) throw knownError("PERMISSION_NOT_FOUND", { permission_id: id });
  if (actual !== scope) {
    throw knownError("WRONG_PERMISSION_SCOPE", {
      permission_id: id,
      expected_scope: scope,
      actual_scope: actual,
    });
  }
}

/** The ids `id` directly contains (none for system permissions and unknown ids). */
export function directlyContained(config: RbacHolder, id: string): string[] {
  if (isSystemPermissionId(id) || !Object.hasOwn(config.rbac.permissions, id)) return [];
  return Object.keys(config.rbac.permissions[id]!.containedPermissionIds);
}

/**
 * The permissions `granted` amount to in `scope`. Ids not defined in that scope are dropped: a grant can outlive its
 * definition when someone rewrites the config by hand, and it must then mean nothing. With `recursive`, contained
 * permissions are added transitively; the visited set makes cycles (a contains b contains a) terminate.
 */
export function expandPermissions(
  config: RbacHolder,
  scope: PermissionScope,
  granted: Iterable<string>,
  recursive: boolean,
): Set<string> {
  const result = new Set<string>();
  const pending = [...granted];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (result.has(id) || permissionScopeOf(config, id) !== scope) continue;
    result.add(id);
    if (recursive) pending.push(...directlyContained(config, id));
  }
  return result;
}

/** Definitions of one scope, sorted by id; team scope includes the read-only system permissions. */
export function listPermissionDefinitions(
  config: RbacHolder,
  scope: PermissionScope,
): PermissionDefinitionView[] {
  const views: PermissionDefinitionView[] = [];
  for (const [id, definition] of Object.entries(config.rbac.permissions)) {
    if (definition.scope !== scope) continue;
    views.push(definitionView(config, id));
  }
  if (scope === "team") {
    for (const id of SYSTEM_PERMISSION_IDS) views.push(definitionView(config, id));
  }
  return views.sort((a, b) => compareIds(a.id, b.id));
}

export function definitionView(config: RbacHolder, id: string): PermissionDefinitionView {
  if (isSystemPermissionId(id)) {
    return { id, description: SYSTEM_PERMISSIONS[id].description, contained_permission_ids: [] };
  }
  const definition = config.rbac.permissions[id]!;
  return {
    id,
    ...(definition.description !== undefined ? { description: definition.description } : {}),
    contained_permission_ids: Object.keys(definition.containedPermissionIds).sort(compareIds),
  };
}

/** Code-unit order, so that listings are stable whatever the locale. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
