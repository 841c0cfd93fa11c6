import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { userIdOrMeField } from "../../fields/ids.ts";
import { serverProfileImageField } from "../../fields/images.ts";
import { storableText } from "../../fields/text.ts";
import { requireUser, resolveUserId } from "../../http/current-user.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { storedImageUrl } from "../images/stored-image.ts";
import {
  refuseClientOnlyViolations,
  requireClientTeamPermission,
  requireUserInProject,
  teamForCaller,
  userIdFromParam,
} from "./access.ts";
import { addMember, removeMember, requireTeam, updateMemberProfile } from "./service.ts";
import {
  clientMemberProfileSchema,
  listOf,
  loadMemberProfiles,
  serverMemberProfileSchema,
  success,
} from "./views.ts";

const membershipParams = z.strictObject({ team_id: z.uuid(), user_id: userIdOrMeField });
const profileBody = { client: clientMemberProfileSchema, server: serverMemberProfileSchema };

const serverOrAdmin = routeGroup({ tags: ["Teams"], access: ["server", "admin"] });
const anyKey = routeGroup({ tags: ["Teams"], access: ["client", "server", "admin"] });

export const membershipRoutes = [
  serverOrAdmin.post("/team-memberships/:team_id/:user_id", {
    summary: "Add a user to a team, with the team member default permissions",
    request: { params: membershipParams },
    response: { status: 201, body: z.object({ team_id: z.string(), user_id: z.string() }) },
    handler: async ({ deps, auth, params }) => {
      const team = await requireTeam(deps.db, auth.project.id, params.team_id);
      const user = await requireUserInProject(deps.db, auth, userIdFromParam(auth, params.user_id));
      const ref = { projectId: auth.project.id, teamId: team.id, userId: user.id, config: auth.config };
      if (!(await addMember(deps.db, ref))) throw knownError("TEAM_MEMBERSHIP_ALREADY_EXISTS");
      return { body: { team_id: team.id, user_id: user.id } };
    },
  }),
  anyKey.delete("/team-memberships/:team_id/:user_id", {
    summary: "Remove a member; clients may leave (user_id=me) or, with $remove_members, remove others",
    request: { params: membershipParams },
    response: { body: success },
    handler: async ({ deps, auth, params }) => {
      const userId = userIdFromParam(auth, params.user_id);
      const projectId = auth.project.id;
      if (auth.accessType === "client") {
        const self = requireUser(auth);
        // Leaving needs nothing but being a member; that is checked by the delete itself.
        if (userId !== self.id) {
          await teamForCaller(deps.db, auth, params.team_id);
          await requireClientTeamPermission(deps.db, auth, params.team_id, "$remove_members");
        }
      } else {
        await requireTeam(deps.db, projectId, params.team_id);
      }
      if (!(await removeMember(deps.db, projectId, params.team_id, userId))) {
        throw knownError("TEAM_MEMBERSHIP_NOT_FOUND", { team_id: params.team_id, user_id: userId });
      }
      return { body: { success: true } };
    },
  }),
];

export const memberProfileRoutes = [
  anyKey.get("/team-member-profiles", {
    summary: "List member profiles of a team and/or a user (clients: of a team they belong to)",
    request: {
      query: z.strictObject({ team_id: z.string().optional(), user_id: z.string().optional() }),
    },
    response: {
      body: { client: listOf(clientMemberProfileSchema), server: listOf(serverMemberProfileSchema) },
    },
    handler: async ({ deps, auth, query }) => {
      const userId = query.user_id === undefined ? undefined : userIdFromParam(auth, query.user_id);
      if (auth.accessType === "client") {
        if (query.team_id === undefined) {
          throw new StatusError(400, "Clients must list member profiles of one team (team_id).");
        }
        await teamForCaller(deps.db, auth, query.team_id);
        // Reading one's own profile needs no permission; anyone else's does.
        if (userId !== requireUser(auth).id) {
          await requireClientTeamPermission(deps.db, auth, query.team_id, "$read_members");
        }
      } else if (query.team_id !== undefined) {
        await requireTeam(deps.db, auth.project.id, query.team_id);
      }
      const items = await loadMemberProfiles(deps.db, auth.project.id, auth.config, {
        ...(query.team_id !== undefined ? { teamId: query.team_id } : {}),
        ...(userId !== undefined ? { userId } : {}),
      });
      return { body: { items, is_paginated: false } };
    },
  }),
  anyKey.get("/team-member-profiles/:team_id/:user_id", {
    summary: "Read one member's profile in a team",
    request: { params: membershipParams },
    response: { body: profileBody },
    handler: async ({ deps, auth, params }) => {
      const userId = userIdFromParam(auth, params.user_id);
      await teamForCaller(deps.db, auth, params.team_id);
      if (auth.accessType === "client") {
        if (userId !== requireUser(auth).id) {
          await requireClientTeamPermission(deps.db, auth, params.team_id, "$read_members");
        }
      }
      return { body: await oneProfile(deps.db, auth.project.id, auth.config, params.team_id, userId) };
    },
  }),
  anyKey.patch("/team-member-profiles/:team_id/:user_id", {
    summary: "Update a member's profile in a team (clients: only their own)",
    request: {
      params: membershipParams,
      body: z.strictObject({
        display_name: storableText(1024).nullable().optional(),
        profile_image_url: serverProfileImageField.nullable().optional(),
      }),
    },
    response: { body: profileBody },
    handler: async ({ deps, auth, params, body, request }) => {
      refuseClientOnlyViolations(auth, request, body, []);
      const userId = resolveUserId(auth, params.user_id);
      const projectId = auth.project.id;
      await teamForCaller(deps.db, auth, params.team_id);
      // A non-member has no row to update; reading it back then answers TEAM_MEMBERSHIP_NOT_FOUND.
      await updateMemberProfile(deps.db, projectId, params.team_id, userId, {
        displayName: body.display_name,
        profileImageUrl: await storedImageUrl(deps.env, "team-member-profile-images", body.profile_image_url),
      });
      return { body: await oneProfile(deps.db, projectId, auth.config, params.team_id, userId) };
    },
  }),
];

async function oneProfile(
  db: Database,
  projectId: string,
  config: RenderedConfig,
  teamId: string,
  userId: string,
) {
  const [profile] = await loadMemberProfiles(db, projectId, config, { teamId, userId });
  if (!profile) throw knownError("TEAM_MEMBERSHIP_NOT_FOUND", { team_id: teamId, user_id: userId });
  return profile;
}
