/**
 * What a user's linked provider accounts may look like (PROTOCOL-EXTRA §8.8), checked when a server links one
 * (`POST /oauth-providers`) and when any caller changes one (`PATCH /oauth-providers/{user}/{id}`): at most one
 * account per provider config signs a user in, and a user holds a provider account id once. A provider account
 * belongs to one user of a project: one that signs someone else in is OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN
 * as in the reference; one another user holds only for connected accounts, which the reference would link a second
 * time, is OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER (README: deliberate differences).
 */
import { knownError } from "@gatehouse/shared";
import { and, eq, or } from "drizzle-orm";
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
  // One read: the user's accounts of this provider, and whoever holds the account id asked for.
  const rows = await db
    .select({
      id: oauthAccounts.id,
      userId: oauthAccounts.userId,
      providerAccountId: oauthAccounts.providerAccountId,
      allowSignIn: oauthAccounts.allowSignIn,
    })
    .from(oauthAccounts)
    .where(
      and(
        eq(oauthAccounts.projectId, input.projectId),
        eq(oauthAccounts.providerConfigId, input.providerConfigId),
        input.accountId === undefined
          ? eq(oauthAccounts.userId, input.userId)
          : or(eq(oauthAccounts.userId, input.userId), eq(oauthAccounts.providerAccountId, input.accountId)),
      ),
    );
  const siblings = rows.filter((account) => account.userId === input.userId && account.id !== input.exceptId);
  // Two sign-in accounts of one provider would make "sign in with GitHub" ambiguous for this user.
  if (input.allowSignIn && siblings.some((account) => account.allowSignIn)) {
    throw new StatusError(400, "The same provider type with sign-in enabled already exists for this user.");
  }
  if (input.accountId === undefined) return;
  if (siblings.some((account) => account.providerAccountId === input.accountId)) {
    throw new StatusError(
      400,
      "The same provider type with the same account ID already exists for this user.",
    );
  }
  const holder = rows.find(
    (account) => account.userId !== input.userId && account.providerAccountId === input.accountId,
  );
  if (!holder) return;
  throw holder.allowSignIn
    ? knownError("OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN")
    : knownError("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER");
}
