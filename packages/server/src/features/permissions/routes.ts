import type { WireProjectPermission, WireTeamPermission } from "@gatehouse/shared";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { userIdOrMeField } from "../../fields/ids.ts";
import { ownListRefusal, ownListUserId, resolveUserId } from "../../http/current-user.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { type AnyRoute, routeGroup } from "../../http/route.ts";
import { wire } from "../../http/wire-schema.ts";
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

const recursiveFlag = z.enum(["true", "false"]).optional();
const success = z.object({ success: z.literal(true) });

/** The user a list is about: clients always list their own permissions, servers may list anyone's or everyone's. */
function listedUserId(auth: RequestAuth, value: string | undefined): string | undefined {
  return ownListUserId(auth, value, ownListRefusal("permissions"));
}

/** What every grant operation is given, whatever the scope; `base` comes from the request's auth. */
type GrantBase = { projectId: string; config: RenderedConfig };
type ListQuery = { user_id?: string | undefined; permission_id?: string | undefined; recursive?: string };
type GrantParams = { user_id: string; permission_id: string };
type ListOptions = GrantBase & {
  userId?: string | undefined;
  permissionId?: string | undefined;
  recursive: boolean;
};
type GrantTarget = GrantBase & { userId: string; permissionId: string };

/**
 * What differs between team and project permission grants. `Query` and `Params` are the parsed forms of the
 * scope's own list query and grant path (team grants also name the team); the operations read them.
 */
type GrantScope<Query extends ListQuery, Params extends GrantParams> = {
  /** The path of the list. */
  path: string;
  tag: string;
  listSummary: string;
  grantSummary: string;
  revokeSummary: string;
  item: z.ZodType;
  listQuery: z.ZodType<Query>;
  /** The path of one grant, for granting and revoking. */
  grantPath: string;
  grantParams: z.ZodType<Params>;
  list: (db: Database, options: ListOptions, query: Query) => Promise<unknown[]>;
  grant: (db: Database, target: GrantTarget, params: Params) => Promise<unknown>;
  revoke: (db: Database, target: GrantTarget, params: Params) => Promise<void>;
};

/** The list, grant and revoke routes of one scope, the same for both but for what `GrantScope` says. */
function grantRoutes<Query extends ListQuery, Params extends GrantParams>(
  scope: GrantScope<Query, Params>,
): AnyRoute[] {
  const tags = [scope.tag];
  const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });
  const serverOrAdmin = routeGroup({ tags, access: ["server", "admin"] });
  const target = (auth: RequestAuth, params: Params): GrantTarget => ({
    projectId: auth.project.id,
    config: auth.config,
    userId: resolveUserId(auth, params.user_id),
    permissionId: params.permission_id,
  });
  return [
    anyKey.get(scope.path, {
      summary: scope.listSummary,
      request: { query: scope.listQuery },
      response: { body: z.object({ items: z.array(scope.item), is_paginated: z.literal(false) }) },
      handler: async ({ deps, auth, query }) => {
        const options: ListOptions = {
          projectId: auth.project.id,
          config: auth.config,
          userId: listedUserId(auth, query.user_id),
          permissionId: query.permission_id,
          // Only `recursive=true` expands (as on the reference platform): without it, the list is the direct grants,
          // so a role's contained permissions (system `$` ones included) are not listed as grants of their own.
          recursive: query.recursive === "true",
        };
        return { body: { items: await scope.list(deps.db, options, query), is_paginated: false } };
      },
    }),
    serverOrAdmin.post(scope.grantPath, {
      summary: scope.grantSummary,
      request: { params: scope.grantParams },
      response: { status: 201, body: scope.item },
      handler: async ({ deps, auth, params }) => ({
        body: await scope.grant(deps.db, target(auth, params), params),
      }),
    }),
    serverOrAdmin.delete(scope.grantPath, {
      summary: scope.revokeSummary,
      request: { params: scope.grantParams },
      response: { body: success },
      handler: async ({ deps, auth, params }) => {
        await scope.revoke(deps.db, target(auth, params), params);
        return { body: { success: true } };
      },
    }),
  ];
}

const listSummaryOf = (scope: string, holders: string) =>
  `List the ${scope} permissions granted to ${holders}; recursive=true (default false) adds contained permissions ` +
  "transitively. " +
  "Filter by permission_id to check one permission";

const teamGrantRoutes = grantRoutes({
  path: "/team-permissions",
  tag: "Team permissions",
  listSummary: listSummaryOf("team", "members"),
  grantSummary: "Grant a team permission to a member of the team",
  revokeSummary: "Revoke a directly granted team permission",
  item: wire<WireTeamPermission>()(z.object({ id: z.string(), user_id: z.string(), team_id: z.string() })),
  listQuery: z.strictObject({
    team_id: z.uuid().optional(),
    user_id: userIdOrMeField.optional(),
    permission_id: permissionIdSchema.optional(),
    recursive: recursiveFlag,
  }),
  grantPath: "/team-permissions/:team_id/:user_id/:permission_id",
  grantParams: z.strictObject({
    team_id: z.uuid(),
    user_id: userIdOrMeField,
    permission_id: permissionIdSchema,
  }),
  list: (db, options, query) => listTeamPermissions(db, { ...options, teamId: query.team_id }),
  grant: (db, target, params) => grantTeamPermission(db, { ...target, teamId: params.team_id }),
  revoke: (db, target, params) => revokeTeamPermission(db, { ...target, teamId: params.team_id }),
});

const projectGrantRoutes = grantRoutes({
  path: "/project-permissions",
  tag: "Project permissions",
  listSummary: listSummaryOf("project", "users"),
  grantSummary: "Grant a project permission to a user",
  revokeSummary: "Revoke a directly granted project permission",
  item: wire<WireProjectPermission>()(z.object({ id: z.string(), user_id: z.string() })),
  listQuery: z.strictObject({
    user_id: userIdOrMeField.optional(),
    permission_id: permissionIdSchema.optional(),
    recursive: recursiveFlag,
  }),
  grantPath: "/project-permissions/:user_id/:permission_id",
  grantParams: z.strictObject({ user_id: userIdOrMeField, permission_id: permissionIdSchema }),
  list: listProjectPermissions,
  grant: grantProjectPermission,
  revoke: revokeProjectPermission,
});

export const permissionRoutes: AnyRoute[] = [
  ...permissionDefinitionRoutes,
  ...teamGrantRoutes,
  ...projectGrantRoutes,
];
