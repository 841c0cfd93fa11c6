/**
 * Permission definitions (PROTOCOL.md §3.11): created, changed and deleted by rewriting `rbac` in the environment
 * override. Each change is one config write, in one transaction with the grant rows it affects, so that the
 * renderer (which rejects dangling references) never sees a half-done change.
 */
import { knownError } from "@gatehouse/shared";
import { and, eq } from "drizzle-orm";
import {
  type ConfigOverride,
  isSystemPermissionId,
  mergeLevelOverrides,
  mergeOverrideOverride,
  overrideToReach,
  type PermissionScope,
  type RenderedConfig,
  renderConfig,
} from "../../config/index.ts";
import { isPlainObject } from "../../config/json.ts";
import type { Database } from "../../db/index.ts";
import { StatusError } from "../../http/status-error.ts";
import { type ConfigStoreDeps, updateConfigOverride } from "../projects/config-store.ts";
import {
  assertPermissionInScope,
  definitionView,
  type PermissionDefinitionView,
  permissionScopeOf,
} from "./graph.ts";
import { projectPermissionGrants, teamPermissionGrants } from "./schema.ts";

type Rbac = RenderedConfig["rbac"];

function childOf(value: unknown, key: string): unknown {
  return isPlainObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

/**
 * Applies `edit` to a copy of the current rbac section and stores the result at the environment level, then runs
 * `afterWrite` (grant cleanup) in the same transaction. `edit` runs against the config as locked for the write.
 */
async function changeRbac(
  store: ConfigStoreDeps,
  projectId: string,
  edit: (rbac: Rbac) => void,
  afterWrite: (tx: Database) => Promise<void>,
): Promise<RenderedConfig> {
  return store.db.transaction(async (tx) => {
    const txStore = { ...store, db: tx as Database };
    const config = await updateConfigOverride(txStore, projectId, "environment", (current, levels) => {
      const rendered = renderConfig({ ...levels, environment: current });
      if (!rendered.ok) throw new Error(`Stored config no longer renders: ${rendered.problems.join("; ")}`);
      const rbac = structuredClone(rendered.config.rbac);
      edit(rbac);
      const lowerRbac = childOf(
        mergeLevelOverrides({ project: levels.project, branch: levels.branch }),
        "rbac",
      );
      const patch: ConfigOverride = {
        "rbac.permissions": overrideToReach(childOf(lowerRbac, "permissions"), rbac.permissions),
        "rbac.defaultPermissions": overrideToReach(
          childOf(lowerRbac, "defaultPermissions"),
          rbac.defaultPermissions,
        ),
      };
      return mergeOverrideOverride(current, patch);
    });
    await afterWrite(tx as Database);
    return config;
  });
}

/** Removes grants of `ids` in both tables: they belong to a definition that is gone or being created afresh. */
async function deleteGrantsOf(tx: Database, projectId: string, id: string): Promise<void> {
  await tx
    .delete(teamPermissionGrants)
    .where(and(eq(teamPermissionGrants.projectId, projectId), eq(teamPermissionGrants.permissionId, id)));
  await tx
    .delete(projectPermissionGrants)
    .where(
      and(eq(projectPermissionGrants.projectId, projectId), eq(projectPermissionGrants.permissionId, id)),
    );
}

function assertNewId(rbac: Rbac, id: string): void {
  if (isSystemPermissionId(id) || Object.hasOwn(rbac.permissions, id)) {
    throw knownError("PERMISSION_ID_ALREADY_EXISTS", { permission_id: id });
  }
}

/** A permission may contain permissions of its own scope only (system permissions count as team permissions). */
function containedSet(rbac: Rbac, scope: PermissionScope, ids: readonly string[]): Record<string, true> {
  const set: Record<string, true> = {};
  for (const id of ids) {
    if (permissionScopeOf({ rbac }, id) !== scope) {
      throw knownError("CONTAINED_PERMISSION_NOT_FOUND", { permission_id: id });
    }
    set[id] = true;
  }
  return set;
}

function assertEditable(rbac: Rbac, id: string, scope: PermissionScope): void {
  assertPermissionInScope({ rbac }, id, scope);
  if (isSystemPermissionId(id)) {
    throw new StatusError(
      400,
      `${id} is a system permission; system permissions cannot be changed or deleted.`,
    );
  }
}

/** Every place an id can be referenced from: other definitions' containment and the default permission sets. */
function referenceSets(rbac: Rbac): Record<string, true>[] {
  return [
    ...Object.values(rbac.permissions).map((definition) => definition.containedPermissionIds),
    rbac.defaultPermissions.teamCreator,
    rbac.defaultPermissions.teamMember,
    rbac.defaultPermissions.signUp,
  ];
}

export type DefinitionInput = {
  id: string;
  description?: string | undefined;
  contained_permission_ids?: readonly string[] | undefined;
};

export async function createPermissionDefinition(
  store: ConfigStoreDeps,
  projectId: string,
  scope: PermissionScope,
  input: DefinitionInput,
): Promise<PermissionDefinitionView> {
  const config = await changeRbac(
    store,
    projectId,
    (rbac) => {
      assertNewId(rbac, input.id);
      rbac.permissions[input.id] = {
        scope,
        ...(input.description !== undefined ? { description: input.description } : {}),
        containedPermissionIds: containedSet(rbac, scope, input.contained_permission_ids ?? []),
      };
    },
    // Grants of an id nobody defined can only be leftovers of a hand-edited config; they must not come back.
    (tx) => deleteGrantsOf(tx, projectId, input.id),
  );
  return definitionView(config, input.id);
}

export async function updatePermissionDefinition(
  store: ConfigStoreDeps,
  projectId: string,
  scope: PermissionScope,
  id: string,
  changes: Partial<DefinitionInput>,
): Promise<PermissionDefinitionView> {
  const newId = changes.id ?? id;
  const renamed = newId !== id;
  const config = await changeRbac(
    store,
    projectId,
    (rbac) => {
      assertEditable(rbac, id, scope);
      if (renamed) {
        assertNewId(rbac, newId);
        rbac.permissions[newId] = rbac.permissions[id]!;
        delete rbac.permissions[id];
        for (const set of referenceSets(rbac)) {
          if (!Object.hasOwn(set, id)) continue;
          delete set[id];
          set[newId] = true;
        }
      }
      const definition = rbac.permissions[newId]!;
      if (changes.description !== undefined) definition.description = changes.description;
      if (changes.contained_permission_ids !== undefined) {
        definition.containedPermissionIds = containedSet(rbac, scope, changes.contained_permission_ids);
      }
    },
    async (tx) => {
      if (!renamed) return;
      await deleteGrantsOf(tx, projectId, newId);
      const table = scope === "team" ? teamPermissionGrants : projectPermissionGrants;
      await tx
        .update(table)
        .set({ permissionId: newId })
        .where(and(eq(table.projectId, projectId), eq(table.permissionId, id)));
    },
  );
  return definitionView(config, newId);
}

/** Deletes the definition, every reference to it and every grant of it. */
export async function deletePermissionDefinition(
  store: ConfigStoreDeps,
  projectId: string,
  scope: PermissionScope,
  id: string,
): Promise<void> {
  await changeRbac(
    store,
    projectId,
    (rbac) => {
      assertEditable(rbac, id, scope);
      delete rbac.permissions[id];
      for (const set of referenceSets(rbac)) delete set[id];
    },
    (tx) => deleteGrantsOf(tx, projectId, id),
  );
}
