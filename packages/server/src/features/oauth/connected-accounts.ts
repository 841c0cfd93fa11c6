/**
 * Connected accounts (PROTOCOL.md §3.15): the provider accounts an app may act through, and fresh provider access
 * tokens for them, refreshed with the provider when the stored one has expired.
 */
import type { WireConnectedAccount, WireProviderAccessToken } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import { resolveUserId } from "../../http/current-user.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { type AnyRoute, defineRoute } from "../../http/route.ts";
import { wire } from "../../http/wire-schema.ts";
import { findUser } from "../users/service.ts";
import {
  decryptProviderToken,
  encryptProviderToken,
  listAccountsOfUser,
  listTokensOfAccounts,
} from "./accounts.ts";
import { callbackUrlFor } from "./authorize.ts";
import { ProviderCallError, refreshTokens, resolveProvider } from "./client.ts";
import { findProviderConfig } from "./provider-config.ts";
import { type OAuthTokenRow, oauthTokens } from "./schema.ts";

/** A stored access token this close to its expiry is refreshed rather than handed out. */
const EXPIRY_MARGIN_MS = 60 * 1000;

async function requireUserInProject(deps: AppDeps, auth: RequestAuth, userId: string): Promise<void> {
  if (auth.accessType !== "client" && !(await findUser(deps.db, auth.project.id, userId))) {
    throw knownError("USER_NOT_FOUND");
  }
}

/** A provider access token for the user's connected account, with at least `requiredScopes`. */
export async function connectedAccountAccessToken(
  deps: AppDeps,
  auth: RequestAuth,
  input: { userId: string; providerId: string; providerAccountId?: string; requiredScopes: string[] },
): Promise<string> {
  const projectId = auth.project.id;
  const entry = findProviderConfig(auth.config, input.providerId);
  if (!entry) throw knownError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
  // The shared keys are the server operator's; apps cannot act at the provider with them.
  if (entry.provider.isShared) throw knownError("OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS");

  const accounts = (await listAccountsOfUser(deps.db, projectId, input.userId)).filter(
    (account) =>
      account.providerConfigId === entry.configId &&
      account.allowConnectedAccounts &&
      (input.providerAccountId === undefined || account.providerAccountId === input.providerAccountId),
  );
  if (accounts.length === 0) throw knownError("OAUTH_CONNECTION_NOT_CONNECTED_TO_USER");

  const candidates = (
    await listTokensOfAccounts(
      deps.db,
      projectId,
      accounts.map((a) => a.id),
    )
  )
    .filter((token) => input.requiredScopes.every((scope) => token.scopes.includes(scope)))
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  const noToken = () => knownError("OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE");
  if (candidates.length === 0) throw noToken();

  const fresh = candidates.find((t) => !t.expiresAt || t.expiresAt.getTime() > Date.now() + EXPIRY_MARGIN_MS);
  if (fresh) return decryptProviderToken(deps.env, fresh.accessTokenEncrypted);

  const provider = await resolveProvider(deps.env, entry, callbackUrlFor(deps, input.providerId));
  for (const token of candidates) {
    if (!token.refreshTokenEncrypted) continue;
    try {
      const refreshed = await refreshTokens(
        provider,
        decryptProviderToken(deps.env, token.refreshTokenEncrypted),
        token.scopes,
      );
      await deps.db
        .update(oauthTokens)
        .set({
          accessTokenEncrypted: encryptProviderToken(deps.env, refreshed.accessToken),
          refreshTokenEncrypted: refreshed.refreshToken
            ? encryptProviderToken(deps.env, refreshed.refreshToken)
            : null,
          scopes: refreshed.scopes,
          expiresAt: refreshed.expiresAt,
        })
        .where(and(eq(oauthTokens.projectId, projectId), eq(oauthTokens.id, token.id)));
      return refreshed.accessToken;
    } catch (error) {
      if (!(error instanceof ProviderCallError)) throw error;
      if (error.kind === "unavailable") {
        throw knownError("OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE", undefined, error.message);
      }
      // The provider revoked the grant: this token is dead for good.
      await dropToken(deps, token);
    }
  }
  // The SDK reads this as "no token" (SPEC.md §7); the user has to connect the account again.
  throw noToken();
}

async function dropToken(deps: AppDeps, token: OAuthTokenRow): Promise<void> {
  await deps.db
    .delete(oauthTokens)
    .where(and(eq(oauthTokens.projectId, token.projectId), eq(oauthTokens.id, token.id)));
}

const tags = ["Connected accounts"];
const accessTokenBody = z.strictObject({ scope: z.string().max(2000).optional() }).optional();
const accessTokenResponse = {
  status: 201,
  body: wire<WireProviderAccessToken>()(z.object({ access_token: z.string() })),
};

function accessTokenHandler() {
  return async ({
    deps,
    auth,
    params,
    body,
  }: {
    deps: AppDeps;
    auth: RequestAuth;
    params: { user_id: string; provider_id: string; provider_account_id?: string };
    body: { scope?: string } | undefined;
  }) => {
    const userId = resolveUserId(auth, params.user_id);
    await requireUserInProject(deps, auth, userId);
    const accessToken = await connectedAccountAccessToken(deps, auth, {
      userId,
      providerId: params.provider_id,
      providerAccountId: params.provider_account_id,
      requiredScopes: body?.scope?.split(/[\s,]+/).filter(Boolean) ?? [],
    });
    return { body: { access_token: accessToken } };
  };
}

export const connectedAccountRoutes: AnyRoute[] = [
  defineRoute({
    method: "GET",
    path: "/connected-accounts/:user_id",
    summary: "List the provider accounts an app may use for a user",
    tags,
    access: ["client", "server", "admin"],
    request: { params: z.strictObject({ user_id: z.string() }) },
    response: {
      body: z.object({
        items: z.array(
          wire<WireConnectedAccount>()(
            z.object({ user_id: z.string(), provider: z.string(), provider_account_id: z.string() }),
          ),
        ),
        is_paginated: z.literal(false),
      }),
    },
    handler: async ({ deps, auth, params }) => {
      const userId = resolveUserId(auth, params.user_id);
      await requireUserInProject(deps, auth, userId);
      const accounts = await listAccountsOfUser(deps.db, auth.project.id, userId);
      const items = accounts
        .filter((account) => account.allowConnectedAccounts)
        .map((account) => ({
          user_id: account.userId,
          provider: account.providerConfigId,
          provider_account_id: account.providerAccountId,
        }));
      return { body: { items, is_paginated: false } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/connected-accounts/:user_id/:provider_id/access-token",
    summary: "Get a provider access token for a connected account (refreshed when needed)",
    tags,
    access: ["client", "server", "admin"],
    request: {
      params: z.strictObject({ user_id: z.string(), provider_id: z.string().min(1).max(100) }),
      body: accessTokenBody,
    },
    response: accessTokenResponse,
    handler: accessTokenHandler(),
  }),
  defineRoute({
    method: "POST",
    path: "/connected-accounts/:user_id/:provider_id/:provider_account_id/access-token",
    summary: "Get a provider access token for one of several connected accounts of a provider",
    tags,
    access: ["client", "server", "admin"],
    request: {
      params: z.strictObject({
        user_id: z.string(),
        provider_id: z.string().min(1).max(100),
        provider_account_id: z.string().min(1).max(500),
      }),
      body: accessTokenBody,
    },
    response: accessTokenResponse,
    handler: accessTokenHandler(),
  }),
  defineRoute({
    method: "POST",
    path: "/auth/oauth/connected-accounts/:provider_id/access-token",
    summary:
      "Legacy form of the connected-account access token, for the signed-in user's account of a provider",
    tags,
    access: ["client", "server", "admin"],
    request: {
      params: z.strictObject({ provider_id: z.string().min(1).max(100) }),
      body: accessTokenBody,
    },
    response: accessTokenResponse,
    // The current route for `me`, so both answer alike.
    handler: ({ params, ...rest }) =>
      accessTokenHandler()({ ...rest, params: { user_id: "me", provider_id: params.provider_id } }),
  }),
];
