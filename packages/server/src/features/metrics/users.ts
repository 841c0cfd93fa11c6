/**
 * The figures that come from the users table and its neighbours (PROTOCOL-EXTRA §4.1): totals, verified and
 * anonymous users, teams, daily sign-ups, login methods and the recent-user lists. Sign-ups and the recent lists
 * read the `users_project_*_idx` indexes in order; the totals count the project's rows, index-only where an index
 * covers them (users_project_anonymous_idx).
 */
import { and, desc, eq, gte, type SQL, sql } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { passkeyCredentials } from "../auth-passkey/schema.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { oauthAccounts } from "../oauth/schema.ts";
import { teams } from "../teams/schema.ts";
import { users } from "../users/schema.ts";
import { loadUserRelations } from "../users/user-with-relations.ts";
import { userView } from "../users/views.ts";
import { type MetricsWindow, series } from "./window.ts";

export const RECENTLY_REGISTERED_LIMIT = 100;
export const RECENTLY_ACTIVE_LIMIT = 5;

async function userCounts(db: Database, projectId: string) {
  const [[counts], [verified], [teamCount]] = await Promise.all([
    db
      .select({
        total: sql<number>`count(*)::int`,
        anonymous: sql<number>`count(*) filter (where ${users.isAnonymous})::int`,
        password: sql<number>`count(*) filter (where ${users.passwordHash} is not null)::int`,
        otp: sql<number>`count(*) filter (where ${users.otpAuthEnabled})::int`,
      })
      .from(users)
      .where(eq(users.projectId, projectId)),
    // Per user, one probe of contact_channels_project_user_idx: cheaper than a distinct over verified channels.
    db
      .select({ count: sql<number>`count(*)::int` })
      .from(users)
      .where(
        and(
          eq(users.projectId, projectId),
          eq(users.isAnonymous, false),
          sql`exists (select 1 from ${contactChannels} where ${contactChannels.projectId} = ${projectId} and ${contactChannels.userId} = ${users.id} and ${contactChannels.type} = 'email' and ${contactChannels.isVerified})`,
        ),
      ),
    db.select({ count: sql<number>`count(*)::int` }).from(teams).where(eq(teams.projectId, projectId)),
  ]);
  return {
    total: Number(counts?.total ?? 0),
    anonymous: Number(counts?.anonymous ?? 0),
    verified: Number(verified?.count ?? 0),
    teams: Number(teamCount?.count ?? 0),
    password: Number(counts?.password ?? 0),
    otp: Number(counts?.otp ?? 0),
  };
}

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

async function dailySignUps(
  db: Database,
  projectId: string,
  window: MetricsWindow,
  includeAnonymous: boolean,
) {
  const day = sql<string>`to_char(${users.signedUpAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows = await db
    .select({ day, count: sql<number>`count(*)::int` })
    .from(users)
    .where(
      and(
        eq(users.projectId, projectId),
        gte(users.signedUpAt, window.start),
        includeAnonymous ? undefined : eq(users.isAnonymous, false),
      ),
    )
    .groupBy(day);
  return series(window, new Map(rows.map((row) => [row.day, Number(row.count)])));
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
  const [counts, withOwnMethods, dailyUsers, recentlyRegistered, recentlyActive] = await Promise.all([
    userCounts(db, projectId),
    loginMethods(db, projectId),
    dailySignUps(db, projectId, window, includeAnonymous),
    recentUsers(db, projectId, config, users.signedUpAt, RECENTLY_REGISTERED_LIMIT, includeAnonymous),
    recentUsers(db, projectId, config, users.lastActiveAt, RECENTLY_ACTIVE_LIMIT, includeAnonymous),
  ]);
  const nonAnonymous = counts.total - counts.anonymous;
  return {
    totalUsersFiltered: includeAnonymous ? counts.total : nonAnonymous,
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
