import type { WireList, WirePermissionDefinition } from "@gatehouse/shared";
import type {
  PermissionDefinition,
  PermissionDefinitionCreateOptions,
  PermissionDefinitionUpdateOptions,
} from "./permissions.ts";
import { call, type Scope, seg } from "./scope.ts";

// Permission definitions (admin), apart from permissions.ts (granting and listing) so that a browser bundle does
// not carry them.

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
