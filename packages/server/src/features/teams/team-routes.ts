import type { WireTeamCreate, WireTeamUpdate } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import type { ServerEnv } from "../../env.ts";
import { serverProfileImageField } from "../../fields/images.ts";
import { metadataField } from "../../fields/metadata.ts";
import { storableText } from "../../fields/text.ts";
import { ownListRefusal, ownListUserId, requireUser } from "../../http/current-user.ts";
import { defineRoute, routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wireRequest } from "../../http/wire-schema.ts";
import { storedImageUrl } from "../images/stored-image.ts";
import { findUser } from "../users/service.ts";
import { clientTeamSchema, serverTeamSchema, teamView } from "../users/views.ts";
import {
  refuseClientOnlyViolations,
  requireUserInProject,
  teamForMemberWith,
  userIdFromParam,
} from "./access.ts";
import { createTeam, deleteTeam, listTeams, type TeamFields, updateTeam } from "./service.ts";
import { success } from "./views.ts";

const tags = ["Teams"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });
const teamBody = { client: clientTeamSchema, server: serverTeamSchema };
const teamParams = z.strictObject({ team_id: z.uuid() });

/** Team names are shown in emails and lists; long enough for "<long email>'s Team". */
export const teamDisplayName = storableText(1024).min(1);

/** The SDK's `listTeams({limit, cursor, orderBy, desc, query})` sends these; without `limit` the list is complete. */
const listTeamsQuery = z.strictObject({
  user_id: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: z.uuid().optional(),
  order_by: z.enum(["created_at"]).optional(),
  desc: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional(),
  query: z
    .string()
    .max(256)
    .refine((value) => !value.includes("\0"), "must not contain NUL")
    .optional(),
});

function teamList<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    is_paginated: z.boolean(),
    pagination: z.object({ next_cursor: z.string().nullable() }).optional(),
  });
}
const SERVER_ONLY_TEAM_FIELDS = ["client_read_only_metadata", "server_metadata"] as const;

const teamUpdateFields = {
  // An update may empty the name, as the reference allows; a new team needs one (teamDisplayName).
  display_name: storableText(1024).optional(),
  profile_image_url: serverProfileImageField.nullable().optional(),
  client_metadata: metadataField.optional(),
  client_read_only_metadata: metadataField.optional(),
  server_metadata: metadataField.optional(),
};

type TeamFieldsBody = {
  display_name?: string | undefined;
  profile_image_url?: string | null | undefined;
  client_metadata?: unknown;
  client_read_only_metadata?: unknown;
  server_metadata?: unknown;
};

/** Called after the permission checks: a data URL picture is uploaded here (PROTOCOL-EXTRA §6.7). */
async function toTeamFields(env: ServerEnv, body: TeamFieldsBody): Promise<TeamFields> {
  return {
    displayName: body.display_name,
    profileImageUrl: await storedImageUrl(env, "team-profile-images", body.profile_image_url),
    clientMetadata: body.client_metadata,
    clientReadOnlyMetadata: body.client_read_only_metadata,
    serverMetadata: body.server_metadata,
  };
}

export const teamCrudRoutes = [
  defineRoute({
    method: "GET",
    path: "/teams",
    summary:
      "List the teams of a user (clients: user_id=me) or, for servers, of the project; paginated with limit",
    tags,
    access: ["client", "server", "admin"],
    request: { query: listTeamsQuery },
    response: { body: { client: teamList(clientTeamSchema), server: teamList(serverTeamSchema) } },
    handler: async ({ deps, auth, query }) => {
      let userId = ownListUserId(auth, query.user_id, ownListRefusal("teams"));
      if (auth.accessType !== "client" && userId !== undefined) {
        userId = (await requireUserInProject(deps.db, auth, userId)).id;
      }
      const { rows, nextCursor } = await listTeams(deps.db, auth.project.id, {
        ...(userId !== undefined ? { userId } : {}),
        ...(query.limit !== undefined ? { limit: query.limit } : {}),
        ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
        ...(query.query !== undefined ? { search: query.query } : {}),
        desc: query.desc ?? false,
      });
      const items = rows.map(teamView);
      if (query.limit === undefined) return { body: { items, is_paginated: false } };
      return { body: { items, is_paginated: true, pagination: { next_cursor: nextCursor } } };
    },
  }),
  anyKey.post("/teams", {
    summary: "Create a team; the creator (creator_user_id, may be `me`) becomes its first member",
    request: {
      body: wireRequest<WireTeamCreate>()(
        z.strictObject({
          ...teamUpdateFields,
          display_name: teamDisplayName,
          creator_user_id: z.string().optional(),
        }),
      ),
    },
    response: { status: 201, body: teamBody },
    handler: async ({ deps, auth, body, request }) => {
      refuseClientOnlyViolations(auth, request, body, SERVER_ONLY_TEAM_FIELDS);
      let creatorId: string | null = null;
      if (auth.accessType === "client") {
        if (!auth.config.teams.allowClientTeamCreation) {
          throw new StatusError(403, "Client team creation is disabled for this project.");
        }
        const user = requireUser(auth);
        const named =
          body.creator_user_id === undefined ? user.id : userIdFromParam(auth, body.creator_user_id);
        if (named !== user.id) {
          throw new StatusError(
            403,
            "A client can only create a team for the signed-in user; set creator_user_id to 'me'.",
          );
        }
        creatorId = user.id;
      } else if (body.creator_user_id !== undefined) {
        const id = userIdFromParam(auth, body.creator_user_id);
        if (!(await findUser(deps.db, auth.project.id, id))) throw knownError("USER_NOT_FOUND");
        creatorId = id;
      }
      const fields = await toTeamFields(deps.env, body);
      const team = await createTeam(
        deps.db,
        auth.project.id,
        auth.config,
        { ...fields, displayName: body.display_name },
        creatorId,
      );
      return { body: teamView(team) };
    },
  }),
  anyKey.get("/teams/:team_id", {
    summary: "Read a team (clients: only teams they belong to)",
    request: { params: teamParams },
    response: { body: teamBody },
    handler: async ({ deps, auth, params }) => ({
      body: teamView(await teamForMemberWith(deps.db, auth, params.team_id, [])),
    }),
  }),
  anyKey.patch("/teams/:team_id", {
    summary: "Update a team (clients need $update_team)",
    request: { params: teamParams, body: wireRequest<WireTeamUpdate>()(z.strictObject(teamUpdateFields)) },
    response: { body: teamBody },
    handler: async ({ deps, auth, params, body, request }) => {
      refuseClientOnlyViolations(auth, request, body, SERVER_ONLY_TEAM_FIELDS);
      await teamForMemberWith(deps.db, auth, params.team_id, ["$update_team"]);
      const team = await updateTeam(
        deps.db,
        auth.project.id,
        params.team_id,
        await toTeamFields(deps.env, body),
      );
      if (!team) throw knownError("TEAM_NOT_FOUND", { team_id: params.team_id });
      return { body: teamView(team) };
    },
  }),
  anyKey.delete("/teams/:team_id", {
    summary: "Delete a team with its memberships and invitations (clients need $delete_team)",
    // The reference reads no body here, so whatever an SDK sends along is ignored rather than refused.
    request: { params: teamParams, body: z.unknown().optional() },
    response: { body: success },
    handler: async ({ deps, auth, params }) => {
      await teamForMemberWith(deps.db, auth, params.team_id, ["$delete_team"]);
      if (!(await deleteTeam(deps.db, auth.project.id, params.team_id))) {
        throw knownError("TEAM_NOT_FOUND", { team_id: params.team_id });
      }
      return { body: { success: true } };
    },
  }),
];
