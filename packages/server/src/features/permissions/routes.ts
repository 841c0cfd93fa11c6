import { z } from "zod";
import { resolveUserId } from "../../http/current-user.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { type AnyRoute, defineRoute } from "../../http/route.ts";
import { permissionDefinitionRoutes, permissionIdSchema } from "./definition-routes.ts";
import {
  grantProjectPermission,
  grantTeamPermission,
  listProjectPermissions,
  listTeamPermissions,
  revokeProjectPermission,
  revokeTeamPermission,
} from "./service.ts";
// Registers the user-creation hook that grants the sign-up default permissions.
import "./user-hooks.ts";

const userIdOrMe = z.union([z.literal("me"), z.uuid({ error: 'must be a user id (a UUID) or "me"' })]);
const recursiveFlag = z.enum(["true", "false"]).optional();

const teamPermissionSchema = z.object({ id: z.string(), user_id: z.string(), team_id: z.string() });
const projectPermissionSchema = z.object({ id: z.string(), user_id: z.string() });
const success = z.object({ success: z.literal(true) });

const teamTags = ["Team permissions"];
const projectTags = ["Project permissions"];

/** The user a list is about: clients always list their own permissions, servers may list anyone's or everyone's. */
function listedUserId(auth: RequestAuth, value: string | undefined): string | undefined {
  if (value === undefined) return auth.accessType === "client" ? resolveUserId(auth, "me") : undefined;
  return resolveUserId(auth, value);
}

const teamGrantParams = z.strictObject({
  team_id: z.uuid(),
  user_id: userIdOrMe,
  permission_id: permissionIdSchema,
});
const projectGrantParams = z.strictObject({ user_id: userIdOrMe, permission_id: permissionIdSchema });

const grantRoutes: AnyRoute[] = [
  defineRoute({
    method: "GET",
    path: "/team-permissions",
    summary:
      "List team permissions of members; recursive (default true) adds contained permissions transitively. " +
      "Filter by permission_id to check one permission",
    tags: teamTags,
    access: ["client", "server", "admin"],
    request: {
      query: z.strictObject({
        team_id: z.uuid().optional(),
        user_id: userIdOrMe.optional(),
        permission_id: permissionIdSchema.optional(),
        recursive: recursiveFlag,
      }),
    },
    response: { body: z.object({ items: z.array(teamPermissionSchema), is_paginated: z.literal(false) }) },
    handler: async ({ deps, auth, query }) => {
      const items = await listTeamPermissions(deps.db, {
        projectId: auth.project.id,
        config: auth.config,
        teamId: query.team_id,
        userId: listedUserId(auth, query.user_id),
        permissionId: query.permission_id,
        recursive: query.recursive !== "false",
      });
      return { body: { items, is_paginated: false } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/team-permissions/:team_id/:user_id/:permission_id",
    summary: "Grant a team permission to a member of the team",
    tags: teamTags,
    access: ["server", "admin"],
    request: { params: teamGrantParams },
    response: { status: 201, body: teamPermissionSchema },
    handler: async ({ deps, auth, params }) => ({
      body: await grantTeamPermission(deps.db, {
        projectId: auth.project.id,
        config: auth.config,
        teamId: params.team_id,
        userId: resolveUserId(auth, params.user_id),
        permissionId: params.permission_id,
      }),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/team-permissions/:team_id/:user_id/:permission_id",
    summary: "Revoke a directly granted team permission",
    tags: teamTags,
    access: ["server", "admin"],
    request: { params: teamGrantParams },
    response: { body: success },
    handler: async ({ deps, auth, params }) => {
      await revokeTeamPermission(deps.db, {
        projectId: auth.project.id,
        config: auth.config,
        teamId: params.team_id,
        userId: resolveUserId(auth, params.user_id),
        permissionId: params.permission_id,
      });
      return { body: { success: true } };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/project-permissions",
    summary:
      "List project permissions of users; recursive (default true) adds contained permissions transitively. " +
      "Filter by permission_id to check one permission",
    tags: projectTags,
    access: ["client", "server", "admin"],
    request: {
      query: z.strictObject({
        user_id: userIdOrMe.optional(),
        permission_id: permissionIdSchema.optional(),
        recursive: recursiveFlag,
      }),
    },
    response: { body: z.object({ items: z.array(projectPermissionSchema), is_paginated: z.literal(false) }) },
    handler: async ({ deps, auth, query }) => {
      const items = await listProjectPermissions(deps.db, {
        projectId: auth.project.id,
        config: auth.config,
        userId: listedUserId(auth, query.user_id),
        permissionId: query.permission_id,
        recursive: query.recursive !== "false",
      });
      return { body: { items, is_paginated: false } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/project-permissions/:user_id/:permission_id",
    summary: "Grant a project permission to a user",
    tags: projectTags,
    access: ["server", "admin"],
    request: { params: projectGrantParams },
    response: { status: 201, body: projectPermissionSchema },
    handler: async ({ deps, auth, params }) => ({
      body: await grantProjectPermission(deps.db, {
        projectId: auth.project.id,
        config: auth.config,
        userId: resolveUserId(auth, params.user_id),
        permissionId: params.permission_id,
      }),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/project-permissions/:user_id/:permission_id",
    summary: "Revoke a directly granted project permission",
    tags: projectTags,
    access: ["server", "admin"],
    request: { params: projectGrantParams },
    response: { body: success },
    handler: async ({ deps, auth, params }) => {
      await revokeProjectPermission(deps.db, {
        projectId: auth.project.id,
        config: auth.config,
        userId: resolveUserId(auth, params.user_id),
        permissionId: params.permission_id,
      });
      return { body: { success: true } };
    },
  }),
];

export const permissionRoutes: AnyRoute[] = [...permissionDefinitionRoutes, ...grantRoutes];
