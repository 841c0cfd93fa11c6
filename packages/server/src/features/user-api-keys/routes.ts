import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import type { UserOrTeamApiKeyType } from "../../crypto/index.ts";
import { userIdOrMeField } from "../../fields/ids.ts";
import { storableText } from "../../fields/text.ts";
import { type AnyRoute, defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { apiKeyNotFound, authorizeKey, authorizeOwner, requireEnabled, toView } from "./access.ts";
import { checkApiKey, createApiKey, findApiKey, listApiKeys, updateApiKey } from "./service.ts";

function readSchema(type: UserOrTeamApiKeyType, value: z.ZodType) {
  return z.object({
    id: z.string(),
    description: z.string(),
    expires_at_millis: z.number().optional(),
    manually_revoked_at_millis: z.number().optional(),
    created_at_millis: z.number(),
    is_public: z.boolean(),
    value,
    type: z.literal(type),
    ...(type === "user" ? { user_id: z.string() } : { team_id: z.string() }),
  });
}

/**
 * Owner fields of a request. Both are accepted by the schema so that sending both gets the clear answer below
 * rather than an "unknown property" one.
 */
function ownerFields(type: UserOrTeamApiKeyType) {
  return type === "user"
    ? { user_id: userIdOrMeField, team_id: z.unknown().optional() }
    : { team_id: z.uuid(), user_id: z.unknown().optional() };
}

function refuseBothOwners(input: { user_id?: unknown; team_id?: unknown }): void {
  if (input.user_id !== undefined && input.team_id !== undefined) {
    throw new StatusError(400, "An API key request cannot carry both user_id and team_id.");
  }
}

function ownerInput(type: UserOrTeamApiKeyType, input: { user_id?: unknown; team_id?: unknown }) {
  return type === "user" ? { userId: input.user_id as string } : { teamId: input.team_id as string };
}

/** A past time is taken, as the reference takes it: the key is born expired (API_KEY_EXPIRED on check). */
function expiryFrom(millis: number | null): Date | null {
  return millis === null ? null : new Date(millis);
}

function apiKeyRoutes(type: UserOrTeamApiKeyType): AnyRoute[] {
  const base = `/${type}-api-keys`;
  const tags = [type === "user" ? "User API keys" : "Team API keys"];
  const read = readSchema(type, z.object({ last_four: z.string() }));
  const created = readSchema(type, z.string());
  const params = z.strictObject({ api_key_id: z.uuid() });
  // The SDK names the key's owner again in the query of reads and updates.
  const ownerQuery = z.strictObject({ user_id: userIdOrMeField.optional(), team_id: z.uuid().optional() });

  return [
    defineRoute({
      method: "POST",
      path: base,
      summary: `Create a ${type} API key; the full key is in this response only`,
      tags,
      access: ["client", "server", "admin"],
      request: {
        body: z.strictObject({
          description: storableText(1000),
          // The SDK leaves the field out for a key that never expires.
          expires_at_millis: z.number().int().positive().nullable().optional(),
          is_public: z.boolean().optional(),
          ...ownerFields(type),
        }),
      },
      response: { body: created },
      handler: async ({ deps, auth, body }) => {
        requireEnabled(auth, type);
        refuseBothOwners(body);
        const expiresAt = expiryFrom(body.expires_at_millis ?? null);
        const owner = await authorizeOwner(deps.db, auth, type, ownerInput(type, body));
        const { row, key } = await createApiKey(deps.db, auth.project.id, owner, {
          description: body.description,
          expiresAt,
          isPublic: body.is_public ?? false,
        });
        return { body: { ...toView(row), value: key } };
      },
    }),
    defineRoute({
      method: "GET",
      path: base,
      summary: `List the ${type}'s API keys (last four characters only)`,
      tags,
      access: ["client", "server", "admin"],
      // A missing user_id is answered after the feature switch, with the reference's own text (§8.5).
      request: {
        query: z.strictObject({
          user_id: type === "user" ? userIdOrMeField.optional() : z.unknown().optional(),
          team_id: type === "team" ? z.uuid() : z.unknown().optional(),
        }),
      },
      response: { body: z.object({ items: z.array(read), is_paginated: z.literal(false) }) },
      handler: async ({ deps, auth, query }) => {
        requireEnabled(auth, type);
        if (type === "user" && query.user_id === undefined) {
          throw knownError("SCHEMA_ERROR", { message: "user_id is required for user API keys" });
        }
        refuseBothOwners(query);
        const owner = await authorizeOwner(deps.db, auth, type, ownerInput(type, query));
        const rows = await listApiKeys(deps.db, auth.project.id, owner);
        return { body: { items: rows.map(toView), is_paginated: false } };
      },
    }),
    defineRoute({
      method: "POST",
      path: `${base}/check`,
      summary: `Check a ${type} API key: its read object, or why it is not valid`,
      tags,
      access: ["server", "admin"],
      request: { body: z.strictObject({ api_key: z.string().max(1000) }) },
      response: { body: read },
      handler: async ({ deps, auth, body }) => {
        requireEnabled(auth, type);
        return { body: toView(await checkApiKey(deps.db, auth.project.id, type, body.api_key)) };
      },
    }),
    defineRoute({
      method: "GET",
      path: `${base}/:api_key_id`,
      summary: `Read a ${type} API key`,
      tags,
      access: ["client", "server", "admin"],
      request: { params, query: ownerQuery },
      response: { body: read },
      handler: async ({ deps, auth, params, query }) => {
        requireEnabled(auth, type);
        const row = (await findApiKey(deps.db, auth.project.id, type, params.api_key_id)) ?? apiKeyNotFound();
        await authorizeKey(deps.db, auth, row, query);
        return { body: toView(row) };
      },
    }),
    defineRoute({
      method: "PATCH",
      path: `${base}/:api_key_id`,
      summary: `Change the description or expiry of, or revoke (irreversibly), a ${type} API key`,
      tags,
      access: ["client", "server", "admin"],
      request: {
        params,
        query: ownerQuery,
        body: z.strictObject({
          description: storableText(1000).optional(),
          expires_at_millis: z.number().int().positive().nullable().optional(),
          revoked: z.literal(true).optional(),
        }),
      },
      response: { body: read },
      handler: async ({ deps, auth, params, query, body }) => {
        requireEnabled(auth, type);
        const row = (await findApiKey(deps.db, auth.project.id, type, params.api_key_id)) ?? apiKeyNotFound();
        await authorizeKey(deps.db, auth, row, query);
        const updated = await updateApiKey(deps.db, row, {
          description: body.description,
          expiresAt: body.expires_at_millis === undefined ? undefined : expiryFrom(body.expires_at_millis),
          revoke: body.revoked,
        });
        return { body: toView(updated) };
      },
    }),
  ];
}

export const userApiKeyRoutes: AnyRoute[] = [...apiKeyRoutes("user"), ...apiKeyRoutes("team")];
