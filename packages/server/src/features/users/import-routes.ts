/**
 * Gatehouse extensions for moving users between systems (`gatehouse users import|export`): a bulk import of
 * `POST /users` bodies (import.ts), and an export that keeps password hashes, for admins only.
 */
import { z } from "zod";
import { defineRoute } from "../../http/route.ts";
import { IMPORT_BATCH_MAX, importUsers } from "./import.ts";
import { listUsers } from "./list.ts";
import { listUsersQuery } from "./requests.ts";
import { userView } from "./views.ts";

const tags = ["Users"];

const exportedUser = z.object({
  id: z.string(),
  signed_up_at_millis: z.number(),
  primary_email: z.string().nullable(),
  primary_email_verified: z.boolean(),
  primary_email_auth_enabled: z.boolean(),
  display_name: z.string().nullable(),
  profile_image_url: z.string().nullable(),
  client_metadata: z.unknown(),
  client_read_only_metadata: z.unknown(),
  server_metadata: z.unknown(),
  is_anonymous: z.boolean(),
  password_hash: z.string().nullable(),
});

export const userImportRoutes = [
  defineRoute({
    method: "POST",
    path: "/users/import",
    summary: `Create up to ${IMPORT_BATCH_MAX} users at once (Gatehouse extension); all or nothing unless skip_invalid`,
    tags,
    access: ["admin"],
    request: {
      body: z.strictObject({
        users: z.array(z.unknown()).min(1).max(IMPORT_BATCH_MAX),
        dry_run: z.boolean().optional(),
        skip_invalid: z.boolean().optional(),
      }),
    },
    response: {
      body: z.object({
        imported: z.number(),
        user_ids: z.array(z.string()),
        errors: z.array(z.object({ index: z.number(), message: z.string() })),
      }),
    },
    handler: async ({ deps, auth, body }) => ({
      body: await importUsers(deps, auth.project.id, auth.config, body.users, {
        dryRun: body.dry_run ?? false,
        skipInvalid: body.skip_invalid ?? false,
      }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/users/export",
    summary:
      "One page of users with their password hashes, in the shape POST /users/import takes (Gatehouse extension)",
    tags,
    access: ["admin"],
    request: { query: listUsersQuery },
    response: {
      body: z.object({
        items: z.array(exportedUser),
        is_paginated: z.literal(true),
        pagination: z.object({ next_cursor: z.string().nullable() }),
      }),
    },
    handler: async ({ deps, auth, query }) => {
      const { rows, relations, nextCursor } = await listUsers(deps.db, auth.project.id, auth.config, query);
      const items = rows.map((row) => {
        const view = userView(row, relations, auth.config);
        return {
          id: view.id,
          signed_up_at_millis: view.signed_up_at_millis,
          primary_email: view.primary_email,
          primary_email_verified: view.primary_email_verified,
          primary_email_auth_enabled: view.primary_email_auth_enabled,
          display_name: view.display_name,
          profile_image_url: view.profile_image_url,
          client_metadata: view.client_metadata,
          client_read_only_metadata: view.client_read_only_metadata,
          server_metadata: view.server_metadata,
          is_anonymous: row.isAnonymous,
          password_hash: row.passwordHash,
        };
      });
      return { body: { items, is_paginated: true, pagination: { next_cursor: nextCursor } } };
    },
  }),
];
