/**
 * The figures that come from `$token-refresh` events (PROTOCOL-EXTRA §4.1): daily active users and teams with their
 * new / retained / reactivated split, MAU, users by country, users online. All but the last read the
 * `activity_days` rollup (events/schema.ts) that the activity writer keeps with the events (one row per active
 * subject and day, each with its previous active day) and its per-day and per-country counts, so no query reads an
 * event, and the split and the countries read a few rows per day. Users online read the events of the last five minutes.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { activityCountryCounts, activityDayCounts, activityNewCounts } from "../events/schema.ts";
import { type DataPoint, dayKey, type MetricsWindow, series } from "./window.ts";

export type ActivitySplit = {
  total: DataPoint[];
  new: DataPoint[];
  retained: DataPoint[];
  reactivated: DataPoint[];
};

const TOKEN_REFRESH = "$token-refresh";

/** Anonymous users' events are left out unless asked for; an event says whether its user was anonymous then. */
export function anonymityFilter(includeAnonymous: boolean): SQL {
  return includeAnonymous ? sql`true` : sql`(e.data->>'is_anonymous') is distinct from 'true'`;
}

type Rows<T> = { rows: T[] };

/**
 * Active users and teams (a team through its members' selected team) per day, split as the protocol has it: `new`
 * is a subject's first activity ever, `retained` one also active the day before, `reactivated` the rest. Totals,
 * retained and the subjects first seen in the window (which add up to MAU) are sums of `activity_day_counts`, a few
 * rows per day. "Ever" is read without scanning history: a subject with no activity earlier in the window (or the
 * day before it) is new when it was created within that span (a user signs in the day they sign up, a team has no
 * activity before it exists), and one created earlier counts as having been active before; `new` sums
 * `activity_new_counts`, the rows of recently created subjects by gap and creation day.
 * Without anonymous users, a day counts a subject when one of its refreshes that day was not anonymous, and its
 * previous day is the previous such day (the `known` rows and counts).
 */
async function activitySplits(
  db: Database,
  projectId: string,
  window: MetricsWindow,
  includeAnonymous: boolean,
) {
  const rangeStartDay = dayKey(window.dayBeforeStart);
  const firstDay = dayKey(window.start);
  const [counted, created] = (await Promise.all([
    db.execute(sql`
      select kind, to_char(day, 'YYYY-MM-DD') as day, sum(subjects)::int as total,
        coalesce(sum(subjects) filter (where gap = 1), 0)::int as retained,
        coalesce(sum(subjects) filter (where gap = 0 or day - gap < ${firstDay}::date), 0)::int as first_in_window
      from ${activityDayCounts}
      where project_id = ${projectId} and kind in (0, 1) and known_only = ${!includeAnonymous}
        and day >= ${firstDay}::date
      group by kind, day`),
    db.execute(sql`
      select kind, to_char(day, 'YYYY-MM-DD') as day, sum(subjects)::int as new
      from ${activityNewCounts}
      where project_id = ${projectId} and kind in (0, 1) and known_only = ${!includeAnonymous}
        and day >= ${firstDay}::date and created_day >= ${rangeStartDay}::date
        and (gap = 0 or day - gap < ${rangeStartDay}::date)
      group by kind, day`),
  ])) as unknown as [
    Rows<{ kind: number; day: string; total: number; retained: number; first_in_window: number }>,
    Rows<{ kind: number; day: string; new: number }>,
  ];
  const newBy = new Map(created.rows.map((row) => [`${Number(row.kind)} ${row.day}`, Number(row.new)]));
  const result = {
    rows: counted.rows.map((row) => ({ ...row, new: newBy.get(`${Number(row.kind)} ${row.day}`) ?? 0 })),
  };
  const splitOf = (kind: 0 | 1) => {
    const rows = result.rows.filter((row) => Number(row.kind) === kind);
    const seriesBy = (value: (row: (typeof rows)[number]) => number) =>
      series(window, new Map(rows.map((row) => [row.day, value(row)])));
    return {
      split: {
        total: seriesBy((row) => Number(row.total)),
        new: seriesBy((row) => Number(row.new)),
        retained: seriesBy((row) => Number(row.retained)),
        reactivated: seriesBy((row) => Number(row.total) - Number(row.retained) - Number(row.new)),
      },
      distinctInWindow: rows.reduce((sum, row) => sum + Number(row.first_in_window), 0),
    };
  };
  return { users: splitOf(0), teams: splitOf(1) };
}

/**
 * Each user's latest known country among their token refreshes of the window: `activity_country_counts` counts each
 * user at their latest day with a country, so the window's map is a sum over its days. The protocol counts all of
 * history; that would grow without bound, so users not seen for 31 days drop out of the map.
 */
async function usersByCountry(
  db: Database,
  projectId: string,
  window: MetricsWindow,
  includeAnonymous: boolean,
): Promise<Record<string, number>> {
  const result = (await db.execute(sql`
    select country as country_code, sum(users)::int as users from ${activityCountryCounts}
    where project_id = ${projectId} and known_only = ${!includeAnonymous} and day >= ${dayKey(window.start)}::date
    group by country having sum(users) > 0
    order by users desc, country
  `)) as unknown as Rows<{ country_code: string; users: number }>;
  return Object.fromEntries(result.rows.map((row) => [row.country_code, Number(row.users)]));
}

/** Distinct users with a token refresh in the last five minutes. */
async function onlineUsers(db: Database, projectId: string, now: Date, includeAnonymous: boolean) {
  const since = new Date(now.getTime() - 5 * 60 * 1000).toISOString();
  const result = (await db.execute(sql`
    select count(distinct e.user_id)::int as online from events e
    where e.project_id = ${projectId} and e.type = ${TOKEN_REFRESH}
      and e.occurred_at >= ${since}::timestamptz and ${anonymityFilter(includeAnonymous)}
  `)) as unknown as Rows<{ online: number }>;
  return Number(result.rows[0]?.online ?? 0);
}

export async function activityMetrics(
  db: Database,
  projectId: string,
  window: MetricsWindow,
  includeAnonymous: boolean,
) {
  const [{ users: userActivity, teams: teamActivity }, byCountry, online] = await Promise.all([
    activitySplits(db, projectId, window, includeAnonymous),
    usersByCountry(db, projectId, window, includeAnonymous),
    onlineUsers(db, projectId, window.now, includeAnonymous),
  ]);
  return {
    dailyActiveUsers: userActivity.split.total,
    dailyActiveUsersSplit: userActivity.split,
    dailyActiveTeamsSplit: teamActivity.split,
    mau: userActivity.distinctInWindow,
    usersByCountry: byCountry,
    onlineLive: online,
  };
}
