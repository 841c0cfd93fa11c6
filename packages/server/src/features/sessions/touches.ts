/**
 * When and from where sessions were last used, written in batches. A refresh only reads its session
 * (service.ts's `refreshSession`); what it would have written is handed to the activity writer
 * (events/analytics.ts), which applies a second's worth of refreshes with one UPDATE. A session's "last used" is
 * thus up to a second late, and a crash forgets at most that second: it decides nothing (a session ends at its
 * `expires_at`, never for being idle), so it is not worth a write, a commit and a WAL flush on every refresh.
 */
import { sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { preparedSql } from "../../db/prepared-sql.ts";
import { sessions } from "./schema.ts";

export type SessionTouch = {
  projectId: string;
  sessionId: string;
  at: Date;
  /** The caller's address; null keeps the one known. */
  ip: string | null;
  /** The stored form of the `user-agent` header (service.ts's `storedUserAgent`); null keeps the one known. */
  userAgent: string | null;
};

/**
 * One UPDATE for a batch. A time never moves backwards, so a batch from another instance that lands late cannot
 * undo a newer one. The rows go in sorted by session id: the plan walks them in that order through the primary key,
 * so two instances touching the same sessions take the row locks in the same order rather than deadlocking.
 */
const touchSessionsStatement = preparedSql<{ touches: string }, never>(
  "touch_sessions",
  sql`
    update ${sessions} set
      last_used_at = greatest(${sessions.lastUsedAt}, touched.at),
      last_used_ip = case when touched.at >= ${sessions.lastUsedAt}
        then coalesce(touched.ip, ${sessions.lastUsedIp}) else ${sessions.lastUsedIp} end,
      last_used_user_agent = case when touched.at >= ${sessions.lastUsedAt}
        then coalesce(touched."userAgent", ${sessions.lastUsedUserAgent}) else ${sessions.lastUsedUserAgent} end
    from jsonb_to_recordset(${sql.placeholder("touches")}::jsonb)
      as touched("projectId" text, "sessionId" uuid, at timestamptz, ip text, "userAgent" text)
    where ${sessions.projectId} = touched."projectId" and ${sessions.id} = touched."sessionId"`,
);

/** Applies the touches, one per session (the caller keeps each session's latest). Deleted sessions are skipped. */
export async function touchSessions(db: Database, touches: readonly SessionTouch[]): Promise<void> {
  if (touches.length === 0) return;
  const sorted = [...touches].sort((a, b) =>
    a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0,
  );
  await touchSessionsStatement(db, { touches: JSON.stringify(sorted) });
}
