import type { RenderedConfig } from "../../config/index.ts";

/**
 * The one place where teams talk to team permissions (the permissions feature owns the rules). Teams tests replace
 * this module with a stand-in (`test-seam.ts`) to steer permission answers.
 */
export { grantDefaultTeamPermissions, hasTeamPermission } from "../permissions/service.ts";

export type TeamPermissionQuery = {
  projectId: string;
  teamId: string;
  userId: string;
  permissionId: string;
  config: RenderedConfig;
};

export type DefaultTeamPermissionGrant = {
  projectId: string;
  teamId: string;
  userId: string;
  config: RenderedConfig;
  /** The team's creator gets `rbac.defaultPermissions.teamCreator`, anyone added later `teamMember`. */
  kind: "creator" | "member";
};
