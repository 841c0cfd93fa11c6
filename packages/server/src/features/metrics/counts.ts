/**
 * The project's totals and daily sign-ups from `project_count_days` (schema.ts): a sum over a few rows per day the
 * project has had sign-ups, instead of a count of its users. Triggers keep the rollup in the transaction of every
 * change (migration 0017_project_count_days); `repairCounts` recounts from the rows and adds what drifted (a change
 * made by an instance of the previous release while the migration ran, a row edited by hand). The repair worker
 * runs it at start and then hourly.
 */
import { sql } from "drizzle-orm";
import { type PollingWorker, startPollingWorker } from "../../background/polling-worker.ts";
import type { Database } from "../../db/index.ts";
import { repairActivityDays } from "../events/activity-days.ts";
import { correctVerifiedEmailFlags } from "../users/store.ts";
import { type DataPoint, type MetricsWindow, series } from "./window.ts";

type Rows<T> = { rows: T[] };

export type ProjectCounts = {
  users: number;
  anonymous: number;
  password: number;
  otp: number;
  verified: number;
  teams: number;
};

/** The totals, and the window's sign-ups per day (anonymous users left out unless asked for). */
export async function readCounts(
  db: Database,
  projectId: string,
  window: MetricsWindow,
  includeAnonymous: boolean,
): Promise<{ counts: ProjectCounts; dailySignUps: DataPoint[] }> {
  const result = (await db.execute(sql`
    select coalesce(sum(users), 0)::int as users, coalesce(sum(anonymous_users), 0)::int as anonymous,
      coalesce(sum(password_users), 0)::int as password, coalesce(sum(otp_users), 0)::int as otp,
      coalesce(sum(verified_users), 0)::int as verified, coalesce(sum(teams), 0)::int as teams,
      coalesce(jsonb_object_agg(day, sign_ups) filter (where day >= ${window.days[0]}::date and sign_ups <> 0), '{}')
        as daily
    from (
      select day, sum(users) as users, sum(anonymous_users) as anonymous_users, sum(password_users) as password_users,
        sum(otp_users) as otp_users, sum(verified_users) as verified_users, sum(teams) as teams,
        sum(users) - ${includeAnonymous ? sql`0` : sql`sum(anonymous_users)`} as sign_ups
      from project_count_days where project_id = ${projectId}
      group by day
    ) days
  `)) as unknown as Rows<ProjectCounts & { daily: Record<string, number> | string }>;
  const row = result.rows[0];
  // PGlite hands jsonb back parsed, node-postgres too; a string only if a driver does not.
  const daily = typeof row?.daily === "string" ? JSON.parse(row.daily) : (row?.daily ?? {});
  const number = (value: unknown) => Number(value ?? 0);
  return {
    counts: {
      users: number(row?.users),
      anonymous: number(row?.anonymous),
      password: number(row?.password),
      otp: number(row?.otp),
      verified: number(row?.verified),
      teams: number(row?.teams),
    },
    dailySignUps: series(window, new Map(Object.entries(daily).map(([day, count]) => [day, Number(count)]))),
  };
}

/**
 * Per project and day, what the rows say minus what the rollup says, where they differ: the same figures as the
 * triggers keep. `projectId` limits it to one project.
 */
function driftSql(projectId: string | null) {
  const scope = projectId === null ? sql`true` : sql`project_id = ${projectId}`;
  return sql`
    select project_id, day, sum(users)::int as users, sum(anonymous_users)::int as anonymous_users,
      sum(password_users)::int as password_users, sum(otp_users)::int as otp_users,
      sum(verified_users)::int as verified_users, sum(teams)::int as teams
    from (
      select project_id, (signed_up_at at time zone 'UTC')::date as day, count(*) as users,
        count(*) filter (where is_anonymous) as anonymous_users,
        count(*) filter (where password_hash is not null) as password_users,
        count(*) filter (where otp_auth_enabled) as otp_users,
        count(*) filter (where has_verified_email and not is_anonymous) as verified_users, 0 as teams
      from users where ${scope} group by 1, 2
      union all
      select project_id, (created_at at time zone 'UTC')::date, 0, 0, 0, 0, 0, count(*)
      from teams where ${scope} group by 1, 2
      union all
      select project_id, day, -users, -anonymous_users, -password_users, -otp_users, -verified_users, -teams
      from project_count_days where ${scope}
    ) both_sides
    group by project_id, day
    having sum(users) <> 0 or sum(anonymous_users) <> 0 or sum(password_users) <> 0 or sum(otp_users) <> 0
      or sum(verified_users) <> 0 or sum(teams) <> 0`;
}

export type CountDrift = ProjectCounts & { day: string };

/** The days whose rollup differs from a recount of the rows (none, unless something drifted). */
export async function countDrift(db: Database, projectId: string): Promise<CountDrift[]> {
  const result = (await db.execute(sql`
    select to_char(day, 'YYYY-MM-DD') as day, users, anonymous_users as anonymous, password_users as password,
      otp_users as otp, verified_users as verified, teams
    from (${driftSql(projectId)}) drift order by day`)) as unknown as Rows<CountDrift>;
  return result.rows;
}

/**
 * Adds to the rollup what a recount finds it lacks; returns the days corrected. The recount and the rollup are read
 * by one statement, so they see the same committed changes; a change committing meanwhile adds its own delta to the
 * row the correction lands on, and both add up. One instance repairs at a time (an advisory lock): two would add
 * the same correction twice. Users' `has_verified_email` are set right first, which moves the counts through their
 * trigger.
 */
export async function repairCounts(db: Database, projectId: string | null = null): Promise<number> {
  return db.transaction(async (tx) => {
    const locked = (await tx.execute(
      sql`select pg_try_advisory_xact_lock(hashtextextended('project-counts-repair', 0)) as locked`,
    )) as unknown as Rows<{ locked: boolean }>;
    if (!locked.rows[0]?.locked) return 0;
    await correctVerifiedEmailFlags(tx, projectId);
    const corrected = (await tx.execute(sql`
      insert into project_count_days as c
        (project_id, day, slot, users, anonymous_users, password_users, otp_users, verified_users, teams)
      select project_id, day, 0, users, anonymous_users, password_users, otp_users, verified_users, teams
      from (${driftSql(projectId)}) drift
      on conflict (project_id, day, slot) do update set users = c.users + excluded.users,
        anonymous_users = c.anonymous_users + excluded.anonymous_users,
        password_users = c.password_users + excluded.password_users, otp_users = c.otp_users + excluded.otp_users,
        verified_users = c.verified_users + excluded.verified_users, teams = c.teams + excluded.teams
      returning 1`)) as unknown as Rows<unknown>;
    return corrected.rows.length;
  });
}

/** An hour between repairs: drift is rare (see repairCounts), and a recount reads every user. */
export const COUNTS_REPAIR_INTERVAL_MS = 3_600_000;

/**
 * The repair every `intervalMs`, on the background-work core, of the counts and of the activity rollup
 * (events/activity-days.ts). Not at start: the migrations' backfills, the triggers and the activity writer keep
 * both, a start changes nothing, and a recount at every instance's start would read every user.
 */
export function startCountsRepair(db: Database, intervalMs = COUNTS_REPAIR_INTERVAL_MS): PollingWorker {
  return startPollingWorker({
    name: "Counts repair",
    intervalMs,
    firstPassAfterInterval: true,
    pass: async () => {
      const corrected = await repairCounts(db);
      if (corrected > 0) console.warn(`Counts repair: ${corrected} project days corrected`);
      const activityCorrected = await repairActivityDays(db);
      if (activityCorrected > 0) console.warn(`Counts repair: ${activityCorrected} activity days corrected`);
    },
  });
}
