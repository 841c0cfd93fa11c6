/** `/oauth-providers` (PROTOCOL.md §3.15): a user's linked provider accounts, read, toggled, unlinked, created. */
import type { WireClientOAuthProvider, WireServerOAuthProvider } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import type { AppDeps } from "../../deps.ts";
import { ownListUserId, resolveUserId } from "../../http/current-user.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { type AnyRoute, defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { findUser } from "../users/service.ts";
import { findAccount, insertAccount, listAccountsOfUser } from "./accounts.ts";
import { findProviderConfig } from "./provider-config.ts";
import { type OAuthAccountRow, oauthAccounts } from "./schema.ts";

const tags = ["OAuth providers"];

const clientProviderSchema = wire<WireClientOAuthProvider>()(
  z.object({
    user_id: z.string(),
    id: z.string(),
    email: z.string().optional(),
    provider_config_id: z.string(),
    type: z.string(),
    allow_sign_in: z.boolean(),
    allow_connected_accounts: z.boolean(),
  }),
);
const serverProviderSchema = wire<WireServerOAuthProvider>()(
  clientProviderSchema.extend({ account_id: z.string() }),
);
const providerBody = { client: clientProviderSchema, server: serverProviderSchema };

function providerView(config: RenderedConfig, row: OAuthAccountRow) {
  return {
    user_id: row.userId,
    id: row.id,
    ...(row.email ? { email: row.email } : {}),
    provider_config_id: row.providerConfigId,
    // The entry may have been removed from the config since; its key is then the best name left.
    type: config.auth.oauth.providers[row.providerConfigId]?.type ?? row.providerConfigId,
    allow_sign_in: row.allowSignIn,
    allow_connected_accounts: row.allowConnectedAccounts,
    account_id: row.providerAccountId,
  };
}

function notFound() {
  return new StatusError(404, "This user has no such OAuth provider account.");
}

async function requireAccount(deps: AppDeps, auth: RequestAuth, userIdParam: string, id: string) {
  const userId = resolveUserId(auth, userIdParam);
  const row = await findAccount(deps.db, auth.project.id, id);
  if (!row || row.userId !== userId) throw notFound();
  return row;
}

const itemParams = z.strictObject({ user_id: z.string(), provider_id: z.string() });

export const providerAccountRoutes: AnyRoute[] = [
  defineRoute({
    method: "GET",
    path: "/oauth-providers",
    summary: "List a user's linked OAuth provider accounts",
    tags,
    access: ["client", "server", "admin"],
    request: { query: z.strictObject({ user_id: z.string().optional() }) },
    response: {
      body: {
        client: z.object({ items: z.array(clientProviderSchema), is_paginated: z.literal(false) }),
        server: z.object({ items: z.array(serverProviderSchema), is_paginated: z.literal(false) }),
      },
    },
    handler: async ({ deps, auth, query }) => {
      const userId = ownListUserId(
        auth,
        query.user_id,
        "Client can only list OAuth providers for their own user.",
      );
      if (
        auth.accessType !== "client" &&
        userId !== undefined &&
        !(await findUser(deps.db, auth.project.id, userId))
      ) {
        throw knownError("USER_NOT_FOUND");
      }
      const rows = await listAccountsOfUser(deps.db, auth.project.id, userId);
      return { body: { items: rows.map((row) => providerView(auth.config, row)), is_paginated: false } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/oauth-providers",
    summary: "Link a provider account to a user (server)",
    tags,
    access: ["server", "admin"],
    request: {
      body: z.strictObject({
        user_id: z.string(),
        provider_config_id: z.string().min(1).max(100),
        account_id: z.string().min(1).max(500),
        email: z.string().max(254).optional(),
        allow_sign_in: z.boolean(),
        allow_connected_accounts: z.boolean(),
      }),
    },
    response: { status: 201, body: providerBody },
    handler: async ({ deps, auth, body }) => {
      const userId = resolveUserId(auth, body.user_id);
      if (!(await findUser(deps.db, auth.project.id, userId))) {
        throw knownError("USER_ID_DOES_NOT_EXIST", { user_id: body.user_id });
      }
      const entry = findProviderConfig(auth.config, body.provider_config_id);
      if (!entry) throw knownError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
      try {
        const row = await insertAccount(deps.db, {
          projectId: auth.project.id,
          userId,
          providerConfigId: entry.configId,
          providerAccountId: body.account_id,
          email: body.email?.trim().toLowerCase() || null,
          allowSignIn: body.allow_sign_in,
          allowConnectedAccounts: body.allow_connected_accounts,
        });
        return { body: providerView(auth.config, row) };
      } catch (error) {
        if (isUniqueViolation(error)) throw knownError("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER");
        throw error;
      }
    },
  }),
  defineRoute({
    method: "GET",
    path: "/oauth-providers/:user_id/:provider_id",
    summary: "Read one linked OAuth provider account",
    tags,
    access: ["client", "server", "admin"],
    request: { params: itemParams },
    response: { body: providerBody },
    handler: async ({ deps, auth, params }) => {
      const row = await requireAccount(deps, auth, params.user_id, params.provider_id);
      return { body: providerView(auth.config, row) };
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/oauth-providers/:user_id/:provider_id",
    summary: "Turn sign-in or connected-account use of a linked provider account on or off",
    tags,
    access: ["client", "server", "admin"],
    request: {
      params: itemParams,
      body: z.strictObject({
        allow_sign_in: z.boolean().optional(),
        allow_connected_accounts: z.boolean().optional(),
      }),
    },
    response: { body: providerBody },
    handler: async ({ deps, auth, params, body }) => {
      const row = await requireAccount(deps, auth, params.user_id, params.provider_id);
      const patch = {
        ...(body.allow_sign_in === undefined ? {} : { allowSignIn: body.allow_sign_in }),
        ...(body.allow_connected_accounts === undefined
          ? {}
          : { allowConnectedAccounts: body.allow_connected_accounts }),
      };
      if (Object.keys(patch).length === 0) return { body: providerView(auth.config, row) };
      const [updated] = await deps.db
        .update(oauthAccounts)
        .set(patch)
        .where(and(eq(oauthAccounts.projectId, auth.project.id), eq(oauthAccounts.id, row.id)))
        .returning();
      if (!updated) throw notFound();
      return { body: providerView(auth.config, updated) };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/oauth-providers/:user_id/:provider_id",
    summary: "Unlink a provider account from a user (its stored provider tokens go with it)",
    tags,
    access: ["client", "server", "admin"],
    request: { params: itemParams },
    response: { body: z.object({ success: z.literal(true) }) },
    handler: async ({ deps, auth, params }) => {
      const row = await requireAccount(deps, auth, params.user_id, params.provider_id);
      await deps.db
        .delete(oauthAccounts)
        .where(and(eq(oauthAccounts.projectId, auth.project.id), eq(oauthAccounts.id, row.id)));
      return { body: { success: true as const } };
    },
  }),
];
