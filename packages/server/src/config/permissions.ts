/**
 * Permission ids. Any permission id matches `^\$?[a-z0-9_:]+$`; the `$` prefix is reserved for the built-in system
 * permissions below, which are team permissions that exist without being defined in config.
 */

export const PERMISSION_ID_PATTERN = /^\$?[a-z0-9_:]+$/;
export const CUSTOM_PERMISSION_ID_PATTERN = /^[a-z0-9_:]+$/;

export const SYSTEM_PERMISSIONS = {
  $update_team: { description: "Update the team's display name, profile image and metadata" },
  $delete_team: { description: "Delete the team" },
  $read_members: { description: "List the team's members and read their profiles" },
  $remove_members: { description: "Remove members from the team" },
  $invite_members: { description: "Invite new members to the team" },
  $manage_api_keys: { description: "Create, list and revoke the team's API keys" },
} as const satisfies Record<string, { description: string }>;

export type SystemPermissionId = keyof typeof SYSTEM_PERMISSIONS;

export const SYSTEM_PERMISSION_IDS = Object.keys(SYSTEM_PERMISSIONS) as SystemPermissionId[];

export function isSystemPermissionId(id: string): id is SystemPermissionId {
  return Object.hasOwn(SYSTEM_PERMISSIONS, id);
}

export function isValidPermissionId(id: string): boolean {
  return PERMISSION_ID_PATTERN.test(id);
}

/** Ids a project may define itself: no `$` prefix. */
export function isValidCustomPermissionId(id: string): boolean {
  return CUSTOM_PERMISSION_ID_PATTERN.test(id);
}
