/**
 * The figures that come from the users table and its neighbours (PROTOCOL-EXTRA §4.1): totals, verified and
 * anonymous users, teams, daily sign-ups, login methods and the recent-user lists. The totals and sign-ups come from
 * the maintained rollup (counts.ts), the recent lists read the `users_project_*_idx` indexes in order.
 */
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { passkeyCredentials } from "../auth-passkey/schema.ts";
import { oauthAccounts } from "../oauth/schema.ts";
import { users } from "../users/schema.ts";
import { loadUserRelations } from "../users/user-with-relations.ts";
import { userView } from "../users/views.ts";
import { readCounts } from "./counts.ts";
import type { MetricsWindow } from "./window.ts";

export const RECENTLY_REGISTERED_LIMIT = 100;
export const RECENTLY_ACTIVE_LIMIT = 5;

/**
 * Sign-in methods by kind, counting methods rather than users and anonymous users too (PROTOCOL-EXTRA §4.1):
 * `password`, `otp`, `passkey` (one per registered passkey) and one entry per OAuth provider id.
 */
async function loginMethods(db: Database, projectId: string) {
  const [[passkeys], providers] = await Promise.all([
    db
      .select({ count: sql<number>`count(*)::int` })
      .from(passkeyCredentials)
      .where(eq(passkeyCredentials.projectId, projectId)),
    db
      .select({
        method: sql<string>`lower(${oauthAccounts.providerConfigId})`,
        count: sql<number>`count(*)::int`,
      })
      .from(oauthAccounts)
      .where(and(eq(oauthAccounts.projectId, projectId), eq(oauthAccounts.allowSignIn, true)))
      .groupBy(sql`lower(${oauthAccounts.providerConfigId})`),
  ]);
  // `password` and `otp` are columns of the users row, counted with the totals (userCounts).
  return (ownMethods: { password: number; otp: number }): { method: string; count: number }[] => {
    const entries = [
      { method: "password", count: ownMethods.password },
      { method: "otp", count: ownMethods.otp },
      { method: "passkey", count: Number(passkeys?.count ?? 0) },
      ...providers.map((row) => ({ method: row.method, count: Number(row.count) })),
    ];
    return entries
      .filter((entry) => entry.count > 0)
      .sort((a, b) => b.count - a.count || a.method.localeCompare(b.method));
  };
}

/** Admin user reads of the newest `limit` users by `column`, in that order. */
async function recentUsers(
  db: Database,
  projectId: string,
  config: RenderedConfig,
  column: typeof users.signedUpAt | typeof users.lastActiveAt,
  limit: number,
  includeAnonymous: boolean,
) {
  const conditions: SQL[] = [eq(users.projectId, projectId)];
  if (!includeAnonymous) conditions.push(eq(users.isAnonymous, false));
  const rows = await db
    .select()
    .from(users)
    .where(and(...conditions))
    .orderBy(desc(column), desc(users.id))
    .limit(limit);
  const relations = await loadUserRelations(db, projectId, rows);
  return rows.map((row) => userView(row, relations, config));
}

export async function userMetrics(
  db: Database,
  projectId: string,
  config: RenderedConfig,
  window: MetricsWindow,
  includeAnonymous: boolean,
) {
  const [{ counts, dailySignUps: dailyUsers }, withOwnMethods, recentlyRegistered, recentlyActive] =
    await Promise.all([
      readCounts(db, projectId, window, includeAnonymous),
      loginMethods(db, projectId),
      recentUsers(db, projectId, config, users.signedUpAt, RECENTLY_REGISTERED_LIMIT, includeAnonymous),
      recentUsers(db, projectId, config, users.lastActiveAt, RECENTLY_ACTIVE_LIMIT, includeAnonymous),
    ]);
  const nonAnonymous = counts.users - counts.anonymous;
  return {
    totalUsersFiltered: includeAnonymous ? counts.users : nonAnonymous,
    verifiedUsers: counts.verified,
    unverifiedUsers: nonAnonymous - counts.verified,
    anonymousUsers: counts.anonymous,
    totalTeams: counts.teams,
    loginMethods: withOwnMethods(counts),
    dailyUsers,
    recentlyRegistered,
    recentlyActive,
  };
}
