/**
 * Who may act on which customer (PROTOCOL-EXTRA §2.2). Servers and admins act on any customer of the project; a
 * client acts as its signed-in user, on that user, or on a team where the user holds `team_admin`; custom
 * customers are never a client's. User and team customers must exist in the caller's project.
 */
import { knownError } from "@gatehouse/shared";
import { TEAM_ADMIN_PERMISSION_ID } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { storableText } from "../../fields/text.ts";
import { requireUser } from "../../http/current-user.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { StatusError } from "../../http/status-error.ts";
import { hasTeamPermission } from "../permissions/service.ts";
import { findMembership, findTeam } from "../teams/service.ts";
import { findUser } from "../users/service.ts";
import type { Customer } from "./catalogue.ts";

/** A customer id from a path or body: a user or team id, or any text the app uses for custom customers. */
export const customerIdField = storableText(200).min(1);

/**
 * Refuses a client that may not act on the customer: USER_AUTHENTICATION_REQUIRED without a signed-in user, a plain
 * 403 for another user or any custom customer, TEAM_NOT_FOUND / TEAM_MEMBERSHIP_NOT_FOUND /
 * TEAM_PERMISSION_REQUIRED for a team. Servers and admins pass.
 */
export async function checkClientCustomerAccess(
  db: Database,
  auth: RequestAuth,
  customer: Customer,
  forbiddenMessage: string,
): Promise<void> {
  if (auth.accessType !== "client") return;
  const user = requireUser(auth);
  if (customer.type === "custom") throw new StatusError(403, forbiddenMessage);
  if (customer.type === "user") {
    if (customer.id !== user.id) throw new StatusError(403, forbiddenMessage);
    return;
  }
  const projectId = auth.project.id;
  if (!(await findTeam(db, projectId, customer.id)))
    throw knownError("TEAM_NOT_FOUND", { team_id: customer.id });
  if (!(await findMembership(db, projectId, customer.id, user.id))) {
    throw knownError("TEAM_MEMBERSHIP_NOT_FOUND", { team_id: customer.id, user_id: user.id });
  }
  const allowed = await hasTeamPermission(db, {
    projectId,
    teamId: customer.id,
    userId: user.id,
    permissionId: TEAM_ADMIN_PERMISSION_ID,
    config: auth.config,
  });
  if (!allowed) {
    throw knownError("TEAM_PERMISSION_REQUIRED", {
      team_id: customer.id,
      user_id: user.id,
      permission_id: TEAM_ADMIN_PERMISSION_ID,
    });
  }
}

/** USER_NOT_FOUND or TEAM_NOT_FOUND unless a user or team customer is in the project; custom ids are anyone's. */
export async function requireCustomerExists(
  db: Database,
  projectId: string,
  customer: Customer,
): Promise<void> {
  if (customer.type === "user" && !(await findUser(db, projectId, customer.id))) {
    throw knownError("USER_NOT_FOUND");
  }
  if (customer.type === "team" && !(await findTeam(db, projectId, customer.id))) {
    throw knownError("TEAM_NOT_FOUND", { team_id: customer.id });
  }
}
