/**
 * Default permissions of new users, run inside the user-creation transaction: the project's sign-up set, and the
 * team-creator set in the personal team that `createUser` may have made (that team is created there, not by the
 * teams feature, so nobody else grants its creator permissions).
 */
import type { UserCreatedHook } from "../hooks.ts";
import { grantDefaultProjectPermissions, grantDefaultTeamPermissions } from "./service.ts";

export const grantDefaultPermissionsToNewUser: UserCreatedHook = async (
  tx,
  { projectId, user, config, personalTeamId },
) => {
  await grantDefaultProjectPermissions(tx, { projectId, userId: user.id, config });
  if (personalTeamId !== null) {
    await grantDefaultTeamPermissions(tx, {
      projectId,
      teamId: personalTeamId,
      userId: user.id,
      config,
      kind: "creator",
    });
  }
};
