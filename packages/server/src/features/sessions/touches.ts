/**
 * When and from where sessions were last used, written in batches. A refresh only reads its session
 * (service.ts's `refreshSession`); what it would have written is handed to the activity writer
 * (activity/analytics.ts), which applies a second's worth of refreshes with one UPDATE. A session's "last used" is
 * thus up to a second late, and a crash forgets at most that second: it decides nothing (a session ends at its
 * `expires_at`, never for being idle), so it is not worth a write, a commit and a WAL flush on every refresh.
 */
import { sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { preparedSql } from "../../db/prepared-sql.ts";
import type { EndUserGeo } from "../../net/ip-info.ts";
import { sessions } from "./schema.ts";

export type SessionTouch = {
  projectId: string;
  sessionId: string;
  at: Date;
  /** The caller's address; null keeps the one known. */
  ip: string | null;
  /** The stored form of the `user-agent` header (service.ts's `storedUserAgent`); null keeps the one known. */
  userAgent: string | null;
  /** What a trusted proxy said of the caller's location; goes with `ip` (a new address without it clears it). */
  geo?: EndUserGeo | null;
};

/**
 * One UPDATE for a batch. A time never moves backwards, so a batch from another instance that lands late cannot
 * undo a newer one. The batch never waits for a row lock: a session that someone holds (a sign-out deleting it, a
 * password change ending a user's other sessions, another instance's batch) is skipped, and keeps its previous
 * "last used" until its next refresh. Waiting could deadlock: the batch locks hundreds of rows, in no order those
 * statements share, and PostgreSQL would then abort one side, possibly the user's request.
 */
const touchSessionsStatement = preparedSql<{ touches: string }, never>(
  "touch_sessions",
  sql`
    with touched as (
      select s.project_id, s.id, t.at, t.ip, t."userAgent", t.geo
      from ${sessions} s
      join jsonb_to_recordset(${sql.placeholder("touches")}::jsonb)
        as t("projectId" text, "sessionId" uuid, at timestamptz, ip text, "userAgent" text, geo jsonb)
        on s.project_id = t."projectId" and s.id = t."sessionId"
      for update of s skip locked
    )
    update ${sessions} set
      last_used_at = greatest(${sessions.lastUsedAt}, touched.at),
      last_used_ip = case when touched.at >= ${sessions.lastUsedAt}
        then coalesce(touched.ip, ${sessions.lastUsedIp}) else ${sessions.lastUsedIp} end,
      last_used_geo = case when touched.at >= ${sessions.lastUsedAt} and touched.ip is not null
        then nullif(touched.geo, 'null'::jsonb) else ${sessions.lastUsedGeo} end,
      last_used_user_agent = case when touched.at >= ${sessions.lastUsedAt}
        then coalesce(touched."userAgent", ${sessions.lastUsedUserAgent}) else ${sessions.lastUsedUserAgent} end
    from touched
    where ${sessions.projectId} = touched.project_id and ${sessions.id} = touched.id`,
);

/** Applies the touches, one per session (the caller keeps each session's latest). Deleted sessions are skipped. */
export async function touchSessions(db: Database, touches: readonly SessionTouch[]): Promise<void> {
  if (touches.length === 0) return;
  await touchSessionsStatement(db, { touches: JSON.stringify(touches) });
}
