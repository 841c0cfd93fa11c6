import type { WireInternalApiKey, WireInternalApiKeyFirstView } from "@gatehouse/shared";
import { z } from "zod";
import { storableText } from "../../fields/text.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import type { ProjectApiKeySetRow } from "./schema.ts";
import { createKeySet, findKeySet, listKeySets, updateKeySet } from "./service.ts";

const lastFour = z.object({ last_four: z.string() });

const keySetSchema = wire<WireInternalApiKey>()(
  z.object({
    id: z.string(),
    description: z.string(),
    expires_at_millis: z.number().nullable(),
    manually_revoked_at_millis: z.number().optional(),
    created_at_millis: z.number(),
    publishable_client_key: lastFour.optional(),
    secret_server_key: lastFour.optional(),
    super_secret_admin_key: lastFour.optional(),
  }),
);

const createdKeySetSchema = wire<WireInternalApiKeyFirstView>()(
  keySetSchema.extend({
    publishable_client_key: z.string().optional(),
    secret_server_key: z.string().optional(),
    super_secret_admin_key: z.string().optional(),
  }),
);

function toView(row: ProjectApiKeySetRow): WireInternalApiKey {
  return {
    id: row.id,
    description: row.description,
    expires_at_millis: row.expiresAt?.getTime() ?? null,
    ...(row.manuallyRevokedAt ? { manually_revoked_at_millis: row.manuallyRevokedAt.getTime() } : {}),
    created_at_millis: row.createdAt.getTime(),
    ...(row.publishableClientKeyLastFour
      ? { publishable_client_key: { last_four: row.publishableClientKeyLastFour } }
      : {}),
    ...(row.secretServerKeyLastFour ? { secret_server_key: { last_four: row.secretServerKeyLastFour } } : {}),
    ...(row.superSecretAdminKeyLastFour
      ? { super_secret_admin_key: { last_four: row.superSecretAdminKeyLastFour } }
      : {}),
  };
}

const keySetParams = z.strictObject({ api_key_id: z.uuid() });
const tags = ["Project API keys"];
const admin = routeGroup({ tags, access: ["admin"] });

function notFound(): never {
  throw new StatusError(404, "API key set not found.");
}

export const projectKeyRoutes = [
  admin.post("/internal/api-keys", {
    summary: "Create a project API key set; the full keys are in this response only",
    request: {
      body: z.strictObject({
        description: storableText(1000),
        expires_at_millis: z.number().int().positive().nullable().optional(),
        has_publishable_client_key: z.boolean(),
        has_secret_server_key: z.boolean(),
        has_super_secret_admin_key: z.boolean(),
      }),
    },
    response: { body: createdKeySetSchema },
    handler: async ({ deps, auth, body }) => {
      if (
        !body.has_publishable_client_key &&
        !body.has_secret_server_key &&
        !body.has_super_secret_admin_key
      ) {
        throw new StatusError(400, "An API key set needs at least one of the three keys.");
      }
      if (body.expires_at_millis != null && body.expires_at_millis <= Date.now()) {
        throw new StatusError(400, "expires_at_millis must be in the future.");
      }
      const { row, keys } = await createKeySet(deps.db, auth.project.id, {
        description: body.description,
        expiresAt: body.expires_at_millis != null ? new Date(body.expires_at_millis) : null,
        hasPublishableClientKey: body.has_publishable_client_key,
        hasSecretServerKey: body.has_secret_server_key,
        hasSuperSecretAdminKey: body.has_super_secret_admin_key,
      });
      return {
        body: {
          ...toView(row),
          publishable_client_key: keys.publishableClientKey,
          secret_server_key: keys.secretServerKey,
          super_secret_admin_key: keys.superSecretAdminKey,
        },
      };
    },
  }),
  admin.get("/internal/api-keys", {
    summary: "List project API key sets (last four characters only)",
    response: { body: z.object({ items: z.array(keySetSchema), is_paginated: z.literal(false) }) },
    handler: async ({ deps, auth }) => ({
      body: { items: (await listKeySets(deps.db, auth.project.id)).map(toView), is_paginated: false },
    }),
  }),
  admin.get("/internal/api-keys/:api_key_id", {
    summary: "Read a project API key set",
    request: { params: keySetParams },
    response: { body: keySetSchema },
    handler: async ({ deps, auth, params }) => ({
      body: toView((await findKeySet(deps.db, auth.project.id, params.api_key_id)) ?? notFound()),
    }),
  }),
  admin.patch("/internal/api-keys/:api_key_id", {
    summary: "Update the description of, or revoke, a project API key set",
    request: {
      params: keySetParams,
      body: z.strictObject({
        description: storableText(1000).optional(),
        revoked: z.literal(true).optional(),
      }),
    },
    response: { body: keySetSchema },
    handler: async ({ deps, auth, params, body }) => {
      const row = await updateKeySet(deps.db, auth.project.id, params.api_key_id, {
        description: body.description,
        revoke: body.revoked,
      });
      return { body: toView(row ?? notFound()) };
    },
  }),
];
