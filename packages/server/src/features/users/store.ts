/**
 * Every write to `users` from outside this folder goes through here (scripts/check-architecture.mjs enforces it),
 * so the columns other features may touch, and how, are listed in one place: sign-in methods turned on, password
 * hashes, the selected team, activity. Creation, updates, upgrades and deletion live beside it in users/.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { preparedSql } from "../../db/prepared-sql.ts";
import { type UserRow, users } from "./schema.ts";

function byId(projectId: string, userId: string) {
  return and(eq(users.projectId, projectId), eq(users.id, userId));
}

/** Turns a sign-in method on after the user used it (PROTOCOL.md §4.2, §4.9); the updated row, or null if gone. */
export async function enableSignInMethod(
  db: Database,
  projectId: string,
  userId: string,
  method: "otp" | "passkey",
): Promise<UserRow | null> {
  const [user] = await db
    .update(users)
    .set(method === "otp" ? { otpAuthEnabled: true } : { passkeyAuthEnabled: true })
    .where(byId(projectId, userId))
    .returning();
  return user ?? null;
}

export async function storePasswordHash(
  db: Database,
  projectId: string,
  userId: string,
  passwordHash: string,
): Promise<void> {
  await db.update(users).set({ passwordHash }).where(byId(projectId, userId));
}

/** Sets the first password of a user; false when they already have one (also when a parallel request won). */
export async function setFirstPasswordHash(
  db: Database,
  projectId: string,
  userId: string,
  passwordHash: string,
): Promise<boolean> {
  const updated = await db
    .update(users)
    .set({ passwordHash })
    .where(and(byId(projectId, userId), isNull(users.passwordHash)))
    .returning({ id: users.id });
  return updated.length > 0;
}

/**
 * Nobody keeps a team they can no longer select as their selected team: every user of the project whose selected
 * team it is (a team being deleted), or one user (a member leaving it).
 */
export async function clearSelectedTeam(
  db: Database,
  projectId: string,
  teamId: string,
  userId?: string,
): Promise<void> {
  await db
    .update(users)
    .set({ selectedTeamId: null })
    .where(
      and(
        eq(users.projectId, projectId),
        eq(users.selectedTeamId, teamId),
        userId === undefined ? undefined : eq(users.id, userId),
      ),
    );
}

/**
 * When users last did something, for a batch of token refreshes (activity/analytics.ts writes them with the activity
 * events, a second at most after they happened): one UPDATE for the batch, each user's latest time, and never
 * backwards, so a batch that arrives late cannot undo a newer one.
 */
export async function touchUsersActivity(
  db: Database,
  touches: readonly { projectId: string; userId: string; at: Date }[],
): Promise<void> {
  const latest = new Map<string, { projectId: string; userId: string; at: Date }>();
  for (const touch of touches) {
    const key = `${touch.projectId}\u0000${touch.userId}`;
    const seen = latest.get(key);
    if (!seen || seen.at < touch.at) latest.set(key, touch);
  }
  if (latest.size === 0) return;
  await touchUsersStatement(db, { touches: JSON.stringify([...latest.values()]) });
}

// The batch is one JSON parameter of a statement prepared once, rather than SQL text built for every flush. It never
// waits for a row lock (a user someone is updating keeps the older time until the next batch): waiting on hundreds of
// rows locked in no shared order could deadlock with a request, and PostgreSQL might abort the request.
const touchUsersStatement = preparedSql<{ touches: string }, never>(
  "touch_users_activity",
  sql`
    with touched as (
      select u.project_id, u.id, t.at
      from ${users} u
      join jsonb_to_recordset(${sql.placeholder("touches")}::jsonb) as t("projectId" text, "userId" uuid, at timestamptz)
        on u.project_id = t."projectId" and u.id = t."userId"
      for update of u skip locked
    )
    update ${users} set last_active_at = greatest(${users.lastActiveAt}, touched.at)
    from touched
    where ${users.projectId} = touched.project_id and ${users.id} = touched.id`,
);

/**
 * Sets `has_verified_email` and `has_verified_primary_email` right where they went wrong (a channel changed outside
 * their triggers, migrations 0017 and 0019), for one project or all: the counts' repair (metrics/counts.ts) runs it
 * first, and the users' trigger moves the counts.
 */
export async function correctVerifiedEmailFlags(db: Database, projectId: string | null): Promise<void> {
  const scope = projectId === null ? sql`true` : sql`u.project_id = ${projectId}`;
  const channel = sql`select 1 from contact_channels c where c.project_id = u.project_id and c.user_id = u.id`;
  await db.execute(sql`
    update users t set has_verified_email = x.any_verified, has_verified_primary_email = x.primary_verified
    from (
      select u.id, exists (${channel} and c.type = 'email' and c.is_verified) as any_verified,
        exists (${channel} and c.is_primary and c.is_verified) as primary_verified
      from users u where ${scope}
    ) x
    where t.id = x.id
      and (t.has_verified_email, t.has_verified_primary_email) is distinct from (x.any_verified, x.primary_verified)`);
}
