import type { WirePermissionDefinition } from "@gatehouse/shared";
import { z } from "zod";
import {
  CUSTOM_PERMISSION_ID_PATTERN,
  PERMISSION_ID_PATTERN,
  type PermissionScope,
} from "../../config/index.ts";
import { storableText } from "../../fields/text.ts";
import { type AnyRoute, routeGroup } from "../../http/route.ts";
import { wire } from "../../http/wire-schema.ts";
import {
  createPermissionDefinition,
  deletePermissionDefinition,
  updatePermissionDefinition,
} from "./definitions.ts";
import { listPermissionDefinitions } from "./graph.ts";

export const permissionIdSchema = z.string().max(200).regex(PERMISSION_ID_PATTERN, {
  error:
    'permission ids may only contain lowercase letters, digits, "_" and ":", optionally after a leading "$"',
});

const customPermissionIdSchema = z.string().max(200).regex(CUSTOM_PERMISSION_ID_PATTERN, {
  error:
    'permission ids may only contain lowercase letters, digits, "_" and ":"; the "$" prefix is reserved for system permissions',
});

const definitionSchema = wire<WirePermissionDefinition>()(
  z.object({
    id: z.string(),
    description: z.string().optional(),
    contained_permission_ids: z.array(z.string()),
  }),
);

const fields = {
  description: storableText(1000).optional(),
  contained_permission_ids: z.array(permissionIdSchema).max(1000).optional(),
};

const params = z.strictObject({ permission_id: permissionIdSchema });

function definitionRoutes(scope: PermissionScope, base: string): AnyRoute[] {
  const tags = [scope === "team" ? "Team permission definitions" : "Project permission definitions"];
  const admin = routeGroup({ tags, access: ["admin"] });
  const noun = `${scope} permission`;
  return [
    admin.get(base, {
      summary:
        scope === "team"
          ? "List team permission definitions, including the read-only system ($) permissions"
          : "List project permission definitions",
      response: { body: z.object({ items: z.array(definitionSchema), is_paginated: z.literal(false) }) },
      handler: async ({ auth }) => ({
        body: { items: listPermissionDefinitions(auth.config, scope), is_paginated: false },
      }),
    }),
    admin.post(base, {
      summary: `Define a ${noun}`,
      request: { body: z.strictObject({ id: customPermissionIdSchema, ...fields }) },
      response: { status: 201, body: definitionSchema },
      handler: async ({ deps, auth, body }) => ({
        body: await createPermissionDefinition(deps, auth.project.id, scope, body),
      }),
    }),
    admin.patch(`${base}/:permission_id`, {
      summary: `Change a ${noun}: its id (references and grants follow), description or contained permissions`,
      request: { params, body: z.strictObject({ id: customPermissionIdSchema.optional(), ...fields }) },
      response: { body: definitionSchema },
      handler: async ({ deps, auth, params, body }) => ({
        body: await updatePermissionDefinition(deps, auth.project.id, scope, params.permission_id, body),
      }),
    }),
    admin.delete(`${base}/:permission_id`, {
      summary: `Delete a ${noun} with every grant of it and every reference to it`,
      request: { params },
      response: { body: z.object({ success: z.literal(true) }) },
      handler: async ({ deps, auth, params }) => {
        await deletePermissionDefinition(deps, auth.project.id, scope, params.permission_id);
        return { body: { success: true } };
      },
    }),
  ];
}

export const permissionDefinitionRoutes: AnyRoute[] = [
  ...definitionRoutes("team", "/team-permission-definitions"),
  ...definitionRoutes("project", "/project-permission-definitions"),
];
