import type { WireUserPage } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import { resolveUserId } from "../../http/current-user.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { defineRoute } from "../../http/route.ts";
import { requestProblemsError } from "../../http/schema-error.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { createUserFromBody } from "./create.ts";
import { listUsers } from "./list.ts";
import {
  clientUpdateBody,
  listUsersQuery,
  serverCreateBody,
  serverUpdateBody,
  type UserPatch,
  userQueryParameters,
} from "./requests.ts";
import type { UserRow } from "./schema.ts";
import { deleteUser, findUser } from "./service.ts";
import { updateUser } from "./update.ts";
import { findUserWithRelations } from "./user-with-relations.ts";
import { clientUserSchema, loadUserView, serverUserSchema, userView } from "./views.ts";

const tags = ["Users"];
const success = z.object({ success: z.literal(true) });
/** The handler returns the server view; the router trims it to the client view for client callers. */
const userResponse = { body: { client: clientUserSchema, server: serverUserSchema } };
const userIdParams = z.strictObject({ user_id: z.string() });

/** The user a path names (`me` included), in the caller's project, or USER_NOT_FOUND. */
async function pathUser(deps: AppDeps, auth: RequestAuth, userIdParam: string): Promise<UserRow> {
  const user = await findUser(deps.db, auth.project.id, resolveUserId(auth, userIdParam));
  if (!user) throw knownError("USER_NOT_FOUND");
  return user;
}

/** The signed-in user for `/users/me`, re-read so that the answer is current. */
async function currentUser(deps: AppDeps, auth: RequestAuth): Promise<UserRow> {
  const user = await findUser(deps.db, auth.project.id, resolveUserId(auth, "me"));
  if (!user) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
  return user;
}

/**
 * Clients may write only the client fields (PROTOCOL.md §3.2). The route's body schema is the server one (a
 * superset), so a client body is checked again against the strict client schema.
 */
function clientPatch(request: Request, body: UserPatch): UserPatch {
  const parsed = clientUpdateBody.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => ({ location: "body", issue }));
    throw requestProblemsError(request.method, new URL(request.url).pathname, problems);
  }
  return parsed.data;
}

async function applyUpdate(deps: AppDeps, auth: RequestAuth, user: UserRow, patch: UserPatch) {
  const updated = await updateUser(deps, auth.project.id, user, patch, auth.config);
  if (!updated) throw knownError("USER_NOT_FOUND");
  return { body: await loadUserView(deps.db, auth.project.id, updated, auth.config) };
}

export const userRoutes = [
  // `/users/me` comes before `/users/:user_id`: the first matching route answers.
  defineRoute({
    method: "GET",
    path: "/users/me",
    summary: "The signed-in user (client view for client access, server view otherwise)",
    tags,
    access: ["client", "server", "admin"],
    response: userResponse,
    handler: async ({ auth }) => {
      // Read with its relations when the request was authenticated, a moment ago, in the same statement.
      if (!auth.user || !auth.userRelations) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
      return { body: userView(auth.user, auth.userRelations, auth.config) };
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/users/me",
    summary: "Update the signed-in user (clients: only the client fields)",
    tags,
    access: ["client", "server", "admin"],
    request: { body: serverUpdateBody },
    response: userResponse,
    handler: async ({ deps, auth, body, request }) => {
      const patch = auth.accessType === "client" ? clientPatch(request, body) : body;
      return applyUpdate(deps, auth, await currentUser(deps, auth), patch);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/users/me",
    summary: "Delete the signed-in user (clients: only if the project allows client user deletion)",
    tags,
    access: ["client", "server", "admin"],
    response: { body: success },
    handler: async ({ deps, auth }) => {
      if (auth.accessType === "client" && !auth.config.users.allowClientUserDeletion) {
        throw new StatusError(403, "Client user deletion is not enabled for this project.");
      }
      const user = await currentUser(deps, auth);
      await deleteUser(deps.db, auth.project.id, user.id);
      return { body: { success: true } };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/users",
    summary:
      "List users, paginated by cursor (default 100 per page, at most 200). Gatehouse extensions: the filters " +
      "primary_email_verified, restricted_by_admin, has_mfa, auth_method (password, otp, passkey, oauth), and " +
      "include_total=true for total_count, the number of users of the filter on every page (an estimate past " +
      "10,000, with total_count_is_estimate: true).",
    tags,
    access: ["server", "admin"],
    request: { query: listUsersQuery },
    response: {
      body: wire<WireUserPage>()(
        z.object({
          items: z.array(serverUserSchema),
          is_paginated: z.literal(true),
          pagination: z.object({ next_cursor: z.string().nullable() }),
          total_count: z.number().int().optional(),
          total_count_is_estimate: z.boolean().optional(),
        }),
      ),
    },
    handler: async ({ deps, auth, query }) => {
      const { rows, relations, nextCursor, total } = await listUsers(
        deps.db,
        auth.project.id,
        auth.config,
        query,
        deps.env.usersExactCountLimit,
      );
      return {
        body: {
          items: rows.map((row) => userView(row, relations, auth.config)),
          is_paginated: true,
          pagination: { next_cursor: nextCursor },
          ...(total === undefined
            ? {}
            : { total_count: total.count, total_count_is_estimate: total.isEstimate }),
        },
      };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/users",
    summary: "Create a user",
    tags,
    access: ["server", "admin"],
    request: { body: serverCreateBody },
    response: { status: 201, body: serverUserSchema },
    handler: async ({ deps, auth, body }) => {
      const user = await createUserFromBody(deps, auth.project.id, auth.config, body);
      return { body: await loadUserView(deps.db, auth.project.id, user, auth.config) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/users/:user_id",
    summary:
      "Read a user (the list's query parameters are accepted and ignored: anonymous users are returned too)",
    tags,
    access: ["server", "admin"],
    // Reference clients may send the list parameters (`include_anonymous=true`) here too; a read by id never filters.
    request: { params: userIdParams, query: userQueryParameters },
    response: { body: serverUserSchema },
    handler: async ({ deps, auth, params }) => {
      // One statement: the user with its view's relations (user-with-relations.ts).
      const found = await findUserWithRelations(
        deps.db,
        auth.project.id,
        resolveUserId(auth, params.user_id),
      );
      if (!found) throw knownError("USER_NOT_FOUND");
      return { body: userView(found.user, found.relations, auth.config) };
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/users/:user_id",
    summary: "Update a user",
    tags,
    access: ["server", "admin"],
    request: { params: userIdParams, body: serverUpdateBody },
    response: { body: serverUserSchema },
    handler: async ({ deps, auth, params, body }) =>
      applyUpdate(deps, auth, await pathUser(deps, auth, params.user_id), body),
  }),
  defineRoute({
    method: "DELETE",
    path: "/users/:user_id",
    summary: "Delete a user and everything of theirs (sessions, contact channels, memberships)",
    tags,
    access: ["server", "admin"],
    request: { params: userIdParams },
    response: { body: success },
    handler: async ({ deps, auth, params }) => {
      const user = await pathUser(deps, auth, params.user_id);
      await deleteUser(deps.db, auth.project.id, user.id);
      return { body: { success: true } };
    },
  }),
];
