/**
 * Stand-in for `permission-seam.ts` in the teams tests (`vi.mock("./permission-seam.ts", () => import(
 * "./test-seam.ts"))`): permissions are whatever a test says, and every default grant is recorded. The tests thus
 * check how teams use permissions, whichever implementation sits behind the seam.
 */
import type { Database } from "../../db/index.ts";
import type { DefaultTeamPermissionGrant, TeamPermissionQuery } from "./permission-seam.ts";

export const seamState = {
  /** `permissionId` (any user) or `userId:permissionId` entries that are refused. */
  denied: new Set<string>(),
  grants: [] as Omit<DefaultTeamPermissionGrant, "config">[],
};

export async function hasTeamPermission(_db: Database, query: TeamPermissionQuery): Promise<boolean> {
  const { denied } = seamState;
  return !denied.has(query.permissionId) && !denied.has(`${query.userId}:${query.permissionId}`);
}

export async function grantDefaultTeamPermissions(
  _db: Database,
  grant: DefaultTeamPermissionGrant,
): Promise<void> {
  const { config: _config, ...rest } = grant;
  seamState.grants.push(rest);
}
