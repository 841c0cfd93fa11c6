/** Storage of linked provider accounts and their (encrypted) provider tokens. */
import { knownError } from "@gatehouse/shared";
import { and, asc, eq, inArray, or } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { decryptSecret, encryptSecret, randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import type { ServerEnv } from "../../env.ts";
import { isUuid } from "../../fields/ids.ts";
import type { UserCreatedHook } from "../hooks.ts";
import type { ProviderTokens } from "./client.ts";
import { findProviderConfig } from "./provider-config.ts";
import { type OAuthAccountRow, type OAuthTokenRow, oauthAccounts, oauthTokens } from "./schema.ts";

/** Encryption purpose of provider tokens: a ciphertext from another column will not decrypt as one. */
const TOKEN_PURPOSE = "oauth-provider-token";

export function encryptProviderToken(env: ServerEnv, token: string): string {
  return encryptSecret(token, { masterSecret: env.secret, purpose: TOKEN_PURPOSE });
}

export function decryptProviderToken(env: ServerEnv, encrypted: string): string {
  return decryptSecret(encrypted, { masterSecret: env.secret, purpose: TOKEN_PURPOSE });
}

export async function findAccountByProviderAccount(
  db: Database,
  projectId: string,
  providerConfigId: string,
  providerAccountId: string,
): Promise<OAuthAccountRow | null> {
  const [row] = await db
    .select()
    .from(oauthAccounts)
    .where(
      and(
        eq(oauthAccounts.projectId, projectId),
        eq(oauthAccounts.providerConfigId, providerConfigId),
        eq(oauthAccounts.providerAccountId, providerAccountId),
      ),
    )
    .limit(1);
  return row ?? null;
}

export async function findAccount(
  db: Database,
  projectId: string,
  id: string,
): Promise<OAuthAccountRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await db
    .select()
    .from(oauthAccounts)
    .where(and(eq(oauthAccounts.projectId, projectId), eq(oauthAccounts.id, id)))
    .limit(1);
  return row ?? null;
}

/** A user's accounts; without a user, every account of the project (servers may list them all). */
export function listAccountsOfUser(
  db: Database,
  projectId: string,
  userId: string | undefined,
): Promise<OAuthAccountRow[]> {
  const ofProject = eq(oauthAccounts.projectId, projectId);
  return db
    .select()
    .from(oauthAccounts)
    .where(userId === undefined ? ofProject : and(ofProject, eq(oauthAccounts.userId, userId)))
    .orderBy(asc(oauthAccounts.createdAt), asc(oauthAccounts.id));
}

export async function insertAccount(
  db: Database,
  input: {
    projectId: string;
    userId: string;
    providerConfigId: string;
    providerAccountId: string;
    email: string | null;
    allowSignIn?: boolean;
    allowConnectedAccounts?: boolean;
  },
): Promise<OAuthAccountRow> {
  const [row] = await db
    .insert(oauthAccounts)
    .values({
      projectId: input.projectId,
      id: randomUuid(),
      userId: input.userId,
      providerConfigId: input.providerConfigId,
      providerAccountId: input.providerAccountId,
      email: input.email,
      allowSignIn: input.allowSignIn ?? true,
      allowConnectedAccounts: input.allowConnectedAccounts ?? true,
    })
    .returning();
  return row!;
}

/** Keeps the account's email in step with the provider. */
export async function updateAccountEmail(db: Database, account: OAuthAccountRow, email: string | null) {
  if (account.email === email) return;
  await db
    .update(oauthAccounts)
    .set({ email })
    .where(and(eq(oauthAccounts.projectId, account.projectId), eq(oauthAccounts.id, account.id)));
}

/**
 * Stores the tokens of a new grant. Older grants whose scopes the new one covers are dropped: the new tokens can do
 * all they could, and providers often revoke a refresh token once a newer one exists.
 */
export async function storeProviderTokens(
  db: Database,
  env: ServerEnv,
  account: OAuthAccountRow,
  tokens: ProviderTokens,
): Promise<void> {
  const previous = await db
    .select({ id: oauthTokens.id, scopes: oauthTokens.scopes })
    .from(oauthTokens)
    .where(and(eq(oauthTokens.projectId, account.projectId), eq(oauthTokens.oauthAccountId, account.id)));
  const granted = new Set(tokens.scopes);
  const covered = previous
    .filter((row) => row.scopes.every((scope) => granted.has(scope)))
    .map((row) => row.id);
  if (covered.length > 0) {
    await db
      .delete(oauthTokens)
      .where(and(eq(oauthTokens.projectId, account.projectId), inArray(oauthTokens.id, covered)));
  }
  await db.insert(oauthTokens).values({
    projectId: account.projectId,
    id: randomUuid(),
    oauthAccountId: account.id,
    accessTokenEncrypted: encryptProviderToken(env, tokens.accessToken),
    refreshTokenEncrypted: tokens.refreshToken ? encryptProviderToken(env, tokens.refreshToken) : null,
    scopes: tokens.scopes,
    expiresAt: tokens.expiresAt,
  });
}

export function listTokensOfAccounts(
  db: Database,
  projectId: string,
  accountIds: readonly string[],
): Promise<OAuthTokenRow[]> {
  if (accountIds.length === 0) return Promise.resolve([]);
  return db
    .select()
    .from(oauthTokens)
    .where(and(eq(oauthTokens.projectId, projectId), inArray(oauthTokens.oauthAccountId, [...accountIds])));
}

/**
 * Links provider accounts to a user being created by a server (`POST /users` with `oauth_providers`), inside the
 * creating transaction. Each `id` names a provider of the project config; an account another user already has is
 * OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER.
 */
export async function attachProviderAccounts(
  tx: Database,
  input: {
    projectId: string;
    config: RenderedConfig;
    userId: string;
    providers: readonly { id: string; account_id: string; email?: string | null }[];
  },
): Promise<void> {
  if (input.providers.length === 0) return;
  const rows = input.providers.map((provider) => {
    const entry = findProviderConfig(input.config, provider.id);
    if (!entry) throw knownError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
    return {
      projectId: input.projectId,
      id: randomUuid(),
      userId: input.userId,
      providerConfigId: entry.configId,
      providerAccountId: provider.account_id,
      email: provider.email ? provider.email.trim().toLowerCase() : null,
    };
  });
  const taken = await tx
    .select({ id: oauthAccounts.id })
    .from(oauthAccounts)
    .where(
      and(
        eq(oauthAccounts.projectId, input.projectId),
        or(
          ...rows.map((row) =>
            and(
              eq(oauthAccounts.providerConfigId, row.providerConfigId),
              eq(oauthAccounts.providerAccountId, row.providerAccountId),
            ),
          ),
        ),
      ),
    )
    .limit(1);
  const duplicate =
    new Set(rows.map((row) => `${row.providerConfigId}\n${row.providerAccountId}`)).size < rows.length;
  if (taken.length > 0 || duplicate) throw knownError("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER");
  await tx.insert(oauthAccounts).values(rows);
}

/** The `userCreated` hook (features/hooks.ts): attaches the accounts a server `POST /users` asked for. */
export const attachRequestedProviderAccounts: UserCreatedHook = (tx, context) =>
  attachProviderAccounts(tx, {
    projectId: context.projectId,
    config: context.config,
    userId: context.user.id,
    providers: context.oauthProviders,
  });
