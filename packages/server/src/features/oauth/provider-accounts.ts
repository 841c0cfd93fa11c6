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
import { schemaError } from "../../http/schema-error.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { findUser } from "../users/service.ts";
import { findAccount, insertAccount, listAccountsOfUser } from "./accounts.ts";
import { checkProviderAccountRules } from "./provider-account-rules.ts";
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

const itemParams = z.strictObject({ user_id: z.string(), provider_id: z.string() });

/** A provider account's email as stored: trimmed, lower-cased; empty is none. */
function storedEmail(email: string | undefined): string | null {
  return email?.trim().toLowerCase() || null;
}

const clientPatchBody = z.strictObject({
  allow_sign_in: z.boolean().optional(),
  allow_connected_accounts: z.boolean().optional(),
});
/** Servers may also correct what the provider said (PROTOCOL-EXTRA §8.8). */
const serverPatchBody = clientPatchBody.extend({
  account_id: z.string().min(1).max(500).optional(),
  email: z.string().max(254).optional(),
});
type ProviderPatch = z.output<typeof serverPatchBody>;

/** The route's body schema is the server one; a client body is checked again against the client schema. */
function clientPatchOf(request: Request, body: ProviderPatch): ProviderPatch {
  const parsed = clientPatchBody.safeParse(body);
  if (!parsed.success) {
    throw schemaError(request.method, new URL(request.url).pathname, "body", parsed.error.issues);
  }
  return parsed.data;
}

function accountNotFound(id: string, userId: string) {
  return new StatusError(404, `OAuth provider ${id} for user ${userId} not found`);
}

/**
 * The account a GET, PATCH or DELETE names, in the reference's order of checks: a client acting for someone else
 * (403, the text naming what it tried), an unknown user (USER_NOT_FOUND), then an account that is not that user's
 * (404).
 */
async function accountOfUser(
  deps: AppDeps,
  auth: RequestAuth,
  userIdParam: string,
  id: string,
  verb: "read" | "update" | "delete",
) {
  if (auth.accessType === "client") {
    if (!auth.user) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
    if (userIdParam !== "me" && userIdParam !== auth.user.id) {
      throw new StatusError(403, `Client can only ${verb} OAuth providers for their own user.`);
    }
  }
  const userId = resolveUserId(auth, userIdParam);
  if (!(await findUser(deps.db, auth.project.id, userId))) throw knownError("USER_NOT_FOUND");
  const row = await findAccount(deps.db, auth.project.id, id);
  if (!row || row.userId !== userId) throw accountNotFound(id, userId);
  return row;
}

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
      await checkProviderAccountRules(deps.db, {
        projectId: auth.project.id,
        userId,
        providerConfigId: entry.configId,
        accountId: body.account_id,
        allowSignIn: body.allow_sign_in,
      });
      try {
        const row = await insertAccount(deps.db, {
          projectId: auth.project.id,
          userId,
          providerConfigId: entry.configId,
          providerAccountId: body.account_id,
          email: storedEmail(body.email),
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
      const row = await accountOfUser(deps, auth, params.user_id, params.provider_id, "read");
      return { body: providerView(auth.config, row) };
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/oauth-providers/:user_id/:provider_id",
    summary:
      "Turn sign-in or connected-account use of a linked provider account on or off; servers may also change its " +
      "provider account id and email",
    tags,
    access: ["client", "server", "admin"],
    request: { params: itemParams, body: serverPatchBody },
    response: { body: providerBody },
    handler: async ({ deps, auth, params, body, request }) => {
      const patch = auth.accessType === "client" ? clientPatchOf(request, body) : body;
      const row = await accountOfUser(deps, auth, params.user_id, params.provider_id, "update");
      await checkProviderAccountRules(deps.db, {
        projectId: auth.project.id,
        userId: row.userId,
        providerConfigId: row.providerConfigId,
        ...(patch.account_id === undefined ? {} : { accountId: patch.account_id }),
        ...(patch.allow_sign_in === undefined ? {} : { allowSignIn: patch.allow_sign_in }),
        exceptId: row.id,
      });
      const set = {
        ...(patch.allow_sign_in === undefined ? {} : { allowSignIn: patch.allow_sign_in }),
        ...(patch.allow_connected_accounts === undefined
          ? {}
          : { allowConnectedAccounts: patch.allow_connected_accounts }),
        ...(patch.account_id === undefined ? {} : { providerAccountId: patch.account_id }),
        ...(patch.email === undefined ? {} : { email: storedEmail(patch.email) }),
      };
      if (Object.keys(set).length === 0) return { body: providerView(auth.config, row) };
      try {
        const [updated] = await deps.db
          .update(oauthAccounts)
          .set(set)
          .where(and(eq(oauthAccounts.projectId, auth.project.id), eq(oauthAccounts.id, row.id)))
          .returning();
        if (!updated) throw accountNotFound(params.provider_id, row.userId);
        return { body: providerView(auth.config, updated) };
      } catch (error) {
        // The new account id is another user's account of this provider.
        if (isUniqueViolation(error)) throw knownError("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER");
        throw error;
      }
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
      const row = await accountOfUser(deps, auth, params.user_id, params.provider_id, "delete");
      await deps.db
        .delete(oauthAccounts)
        .where(and(eq(oauthAccounts.projectId, auth.project.id), eq(oauthAccounts.id, row.id)));
      return { body: { success: true as const } };
    },
  }),
];
