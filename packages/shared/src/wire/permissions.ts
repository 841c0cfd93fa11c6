/** Granted permissions and permission definitions (PROTOCOL.md §3.11). */
export type WireTeamPermission = { id: string; user_id: string; team_id: string };
export type WireProjectPermission = { id: string; user_id: string };

export type WirePermissionDefinition = {
  id: string;
  description?: string;
  contained_permission_ids: string[];
};
