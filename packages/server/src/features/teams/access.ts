import { knownError } from "@gatehouse/shared";
import type { Database } from "../../db/index.ts";
import { clientProfileImageField } from "../../fields/images.ts";
import { requireUser } from "../../http/current-user.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { requestProblemsError, schemaError } from "../../http/schema-error.ts";
import { findUser } from "../users/service.ts";
import { hasTeamPermission } from "./permission-seam.ts";
import type { TeamRow } from "./schema.ts";
import { findMembership, findTeam } from "./service.ts";

/**
 * The team, if the caller may see it. Servers and admins see every team of the project; a client sees only teams
 * its user belongs to, and any other team is "not found" so that clients cannot probe which team ids exist.
 */
export async function teamForCaller(db: Database, auth: RequestAuth, teamId: string): Promise<TeamRow> {
  const team = await findTeam(db, auth.project.id, teamId);
  if (auth.accessType === "client") {
    const user = requireUser(auth);
    if (!team || !(await findMembership(db, auth.project.id, teamId, user.id))) {
      throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
    }
  }
  if (!team) throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
  return team;
}

/**
 * The invitation routes' check (PROTOCOL-EXTRA.md §8.1): a client's user must be a member of the team
 * (TEAM_MEMBERSHIP_NOT_FOUND, also for a team that does not exist) holding each of `permissionIds`, checked in
 * that order; servers and admins need only the team to exist.
 */
export async function teamForMemberWith(
  db: Database,
  auth: RequestAuth,
  teamId: string,
  permissionIds: readonly string[],
): Promise<TeamRow> {
  const team = await findTeam(db, auth.project.id, teamId);
  if (auth.accessType === "client") {
    const user = requireUser(auth);
    if (!team || !(await findMembership(db, auth.project.id, teamId, user.id))) {
      throw knownError("TEAM_MEMBERSHIP_NOT_FOUND", { team_id: teamId, user_id: user.id });
    }
    for (const permissionId of permissionIds) {
      await requireClientTeamPermission(db, auth, teamId, permissionId);
    }
  }
  if (!team) throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
  return team;
}

/**
 * Clients act as their user, who needs the team permission; servers and admins need none. Call after
 * `teamForCaller`, which has made sure a client's user is a member.
 */
export async function requireClientTeamPermission(
  db: Database,
  auth: RequestAuth,
  teamId: string,
  permissionId: string,
): Promise<void> {
  if (auth.accessType !== "client") return;
  const user = requireUser(auth);
  const allowed = await hasTeamPermission(db, {
    projectId: auth.project.id,
    teamId,
    userId: user.id,
    permissionId,
    config: auth.config,
  });
  if (!allowed) {
    throw knownError("TEAM_PERMISSION_REQUIRED", {
      team_id: teamId,
      user_id: user.id,
      permission_id: permissionId,
    });
  }
}

/**
 * A user id from a path or query where `me` is the signed-in user. Unlike `resolveUserId`, clients may name other
 * users here: routes that allow it check a team permission instead.
 */
export function userIdFromParam(auth: RequestAuth, value: string): string {
  if (value !== "me") return value;
  if (!auth.user) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
  return auth.user.id;
}

/** The user named in a path, which must exist in the project. */
export async function requireUserInProject(db: Database, auth: RequestAuth, userId: string) {
  const user = await findUser(db, auth.project.id, userId);
  if (!user) throw knownError("USER_NOT_FOUND");
  return user;
}

/**
 * One body schema serves every access type. For clients, fields only servers may write are refused the way an
 * unknown property is (SCHEMA_ERROR), and a picture must be uploaded inline (a data URL), as for users, so that a
 * client cannot point its teammates' browsers at a host of its choosing.
 */
export function refuseClientOnlyViolations(
  auth: RequestAuth,
  request: Request,
  body: Record<string, unknown>,
  serverOnly: readonly string[],
): void {
  if (auth.accessType !== "client") return;
  const where = new URL(request.url).pathname;
  const keys = serverOnly.filter((key) => body[key] !== undefined);
  if (keys.length > 0) {
    throw schemaError(request.method, where, "body", [
      { code: "unrecognized_keys", keys, path: [], message: "", input: body },
    ]);
  }
  const image = body.profile_image_url;
  if (typeof image === "string") {
    const result = clientProfileImageField.safeParse(image);
    if (!result.success) {
      const problems = result.error.issues.map((issue) => ({
        location: "body",
        issue: { ...issue, path: ["profile_image_url", ...issue.path] },
      }));
      throw requestProblemsError(request.method, where, problems);
    }
  }
}
