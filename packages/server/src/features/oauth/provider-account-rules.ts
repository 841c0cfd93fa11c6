/**
 * What a user's linked provider accounts may look like (PROTOCOL-EXTRA §8.8), checked when a server links one
 * (`POST /oauth-providers`) and when any caller changes one (`PATCH /oauth-providers/{user}/{id}`): at most one
 * account per provider config signs a user in, and a user holds a provider account id once. A provider account
 * belongs to one user of a project: one that signs someone else in is OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN
 * as in the reference; one another user holds only for connected accounts, which the reference would link a second
 * time, is OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER (README: deliberate differences).
 */
import { knownError } from "@gatehouse/shared";
import { and, eq, ne } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { StatusError } from "../../http/status-error.ts";
import { oauthAccounts } from "./schema.ts";

export async function checkProviderAccountRules(
  db: Database,
  input: {
    projectId: string;
    userId: string;
    providerConfigId: string;
    /** The account id the account will have; left out when a change keeps it. */
    accountId?: string;
    /** Whether the account will sign in; left out when a change does not turn it on or off. */
    allowSignIn?: boolean;
    /** The account being changed, which never conflicts with itself. */
    exceptId?: string;
  },
): Promise<void> {
  const siblings = (
    await db
      .select({
        id: oauthAccounts.id,
        providerAccountId: oauthAccounts.providerAccountId,
        allowSignIn: oauthAccounts.allowSignIn,
      })
      .from(oauthAccounts)
      .where(
        and(
          eq(oauthAccounts.projectId, input.projectId),
          eq(oauthAccounts.userId, input.userId),
          eq(oauthAccounts.providerConfigId, input.providerConfigId),
        ),
      )
  ).filter((account) => account.id !== input.exceptId);
  // Two sign-in accounts of one provider would make "sign in with GitHub" ambiguous for this user.
  if (input.allowSignIn && siblings.some((account) => account.allowSignIn)) {
    throw new StatusError(400, "The same provider type with sign-in enabled already exists for this user.");
  }
  if (
    input.accountId !== undefined &&
    siblings.some((account) => account.providerAccountId === input.accountId)
  ) {
    throw new StatusError(
      400,
      "The same provider type with the same account ID already exists for this user.",
    );
  }
  if (input.accountId !== undefined) await checkAccountIdFree(db, { ...input, accountId: input.accountId });
}

async function checkAccountIdFree(
  db: Database,
  input: { projectId: string; userId: string; providerConfigId: string; accountId: string },
): Promise<void> {
  const [holder] = await db
    .select({ allowSignIn: oauthAccounts.allowSignIn })
    .from(oauthAccounts)
    .where(
      and(
        eq(oauthAccounts.projectId, input.projectId),
        eq(oauthAccounts.providerConfigId, input.providerConfigId),
        eq(oauthAccounts.providerAccountId, input.accountId),
        ne(oauthAccounts.userId, input.userId),
      ),
    )
    .limit(1);
  if (!holder) return;
  throw holder.allowSignIn
    ? knownError("OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN")
    : knownError("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER");
}
