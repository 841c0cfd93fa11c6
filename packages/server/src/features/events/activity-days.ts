/**
 * The `activity_days` rollup and its `activity_day_counts`, `activity_new_counts` and `activity_country_counts`
 * (schema.ts): how a set of `$token-refresh` events becomes
 * rows, and rows counts, used both by the activity writer's INSERT (activity-rows.ts) and by the repair below, so
 * that the two cannot mean different things; and `repairActivityDays`, which recomputes the rows of the last 32 days
 * from the events, then the counts from the rows, and corrects what differs.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { projects } from "../projects/schema.ts";
import { teams } from "../teams/schema.ts";
import { users } from "../users/schema.ts";
import { activityCountryCounts, activityDayCounts, activityDays, activityNewCounts } from "./schema.ts";

const TOKEN_REFRESH = "$token-refresh";

/** How far back a subject's previous day is looked for: the metrics window (31 days) and the day before it. */
export const PREVIOUS_DAY_REACH = 32;

/**
 * One row per (project, kind, day, subject) from `source`, a relation of events with the columns project_id, type,
 * user_id, team_id, country_code, occurred_at and anonymous (`data->>'is_anonymous'`). A user is counted as known
 * when their event does not say they were anonymous, the filter the metrics have always applied. `batch_previous`
 * and `batch_known_previous` are the subject's previous days among the rows of `source` itself.
 */
export function refreshDaysOf(source: SQL): SQL {
  return sql`
    select project_id, kind, day, subject, known, country, country_at, known_country, known_country_at,
      max(day) over earlier as batch_previous, max(day) filter (where known) over earlier as batch_known_previous
    from (
      select project_id, kind, day, subject, bool_or(known) as known,
        (array_agg(country_code order by occurred_at desc) filter (where country_code is not null and kind = 0))[1]
          as country,
        max(occurred_at) filter (where country_code is not null and kind = 0) as country_at,
        (array_agg(country_code order by occurred_at desc)
          filter (where country_code is not null and kind = 0 and known))[1] as known_country,
        max(occurred_at) filter (where country_code is not null and kind = 0 and known) as known_country_at
      from (
        select s.project_id, k.kind, (s.occurred_at at time zone 'UTC')::date as day, k.subject,
          s.anonymous is distinct from 'true' as known, s.country_code, s.occurred_at
        from (${source}) s
        cross join lateral (values (0::smallint, s.user_id), (1::smallint, s.team_id)) as k(kind, subject)
        where s.type = ${sql.raw(`'${TOKEN_REFRESH}'`)} and k.subject is not null
      ) refreshes
      group by project_id, kind, day, subject
    ) keyed
    window earlier as (partition by project_id, kind, subject order by day rows between unbounded preceding and 1 preceding)`;
}

/**
 * What the rows of `rows` (a relation of `activity_days` rows) add to `activity_day_counts`, times `sign`: each row
 * once with its previous day, and a known row once more with its known previous day.
 */
export function countsOf(rows: SQL, sign: 1 | -1): SQL {
  const gap = (previous: SQL) => sql`coalesce((r.day - ${previous})::smallint, 0::smallint)`;
  return sql`
    select r.project_id, r.kind, false as known_only, r.day, ${gap(sql`r.previous_day`)} as gap, ${sql.raw(String(sign))} as n
    from ${rows} r
    union all
    select r.project_id, r.kind, true, r.day, ${gap(sql`r.known_previous_day`)}, ${sql.raw(String(sign))}
    from ${rows} r where r.known`;
}

/** The creation day of the subject of `row` (an alias with project_id, kind and subject), null if it is gone. */
export function createdDayOf(row: SQL): SQL {
  return sql`case ${row}.kind
    when 0 then (select (u.signed_up_at at time zone 'UTC')::date from ${users} u
      where u.project_id = ${row}.project_id and u.id = ${row}.subject)
    else (select (t.created_at at time zone 'UTC')::date from ${teams} t
      where t.project_id = ${row}.project_id and t.id = ${row}.subject) end`;
}

/** What the rows of `rows` add to `activity_new_counts`, times `sign`: those of subjects created in the 32 days before. */
export function newCountsOf(rows: SQL, sign: 1 | -1): SQL {
  const gap = (previous: SQL) => sql`coalesce((r.day - ${previous})::smallint, 0::smallint)`;
  const recent = sql`r.created_day >= r.day - ${sql.raw(String(PREVIOUS_DAY_REACH))}`;
  return sql`
    select r.project_id, r.kind, false as known_only, r.day, ${gap(sql`r.previous_day`)} as gap, r.created_day,
      ${sql.raw(String(sign))} as n
    from ${rows} r where ${recent}
    union all
    select r.project_id, r.kind, true, r.day, ${gap(sql`r.known_previous_day`)}, r.created_day, ${sql.raw(String(sign))}
    from ${rows} r where r.known and ${recent}`;
}

/** Adds `changes` (project_id, kind, known_only, day, gap, created_day, n) to the new counts, in key order. */
export function addToNewCounts(changes: SQL): SQL {
  return sql`
    insert into ${activityNewCounts} as c (project_id, kind, known_only, day, gap, created_day, subjects)
    select project_id, kind, known_only, day, gap, created_day, sum(n) from (${changes}) changes
    group by project_id, kind, known_only, day, gap, created_day having sum(n) <> 0
    order by project_id, kind, known_only, day, gap, created_day
    on conflict (project_id, kind, known_only, day, gap, created_day) do update set subjects = c.subjects + excluded.subjects`;
}

/** Adds `changes` (project_id, kind, known_only, day, gap, n) to the counts, in key order (see activity-rows.ts). */
export function addToCounts(changes: SQL): SQL {
  return sql`
    insert into ${activityDayCounts} as c (project_id, kind, known_only, day, gap, subjects)
    select project_id, kind, known_only, day, gap, sum(n) from (${changes}) changes
    group by project_id, kind, known_only, day, gap having sum(n) <> 0
    order by project_id, kind, known_only, day, gap
    on conflict (project_id, kind, known_only, day, gap) do update set subjects = c.subjects + excluded.subjects`;
}

/**
 * The (project, subject, known_only, day, country) of each user row of `rows` that has a country, once per view:
 * the candidates for a user's latest country.
 */
export function countryCandidatesOf(rows: SQL): SQL {
  return sql`
    select r.project_id, r.subject, false as known_only, r.day, r.country from ${rows} r
    where r.kind = 0 and r.country is not null
    union all
    select r.project_id, r.subject, true, r.day, r.known_country from ${rows} r
    where r.kind = 0 and r.known_country is not null`;
}

/** Adds `changes` (project_id, known_only, day, country, n) to the country counts, in key order. */
export function addToCountryCounts(changes: SQL): SQL {
  return sql`
    insert into ${activityCountryCounts} as c (project_id, known_only, day, country, users)
    select project_id, known_only, day, country, sum(n) from (${changes}) changes
    group by project_id, known_only, day, country having sum(n) <> 0
    order by project_id, known_only, day, country
    on conflict (project_id, known_only, day, country) do update set users = c.users + excluded.users`;
}

/** The events of one project (or all, for null) since `from`, as `refreshDaysOf` takes them. */
function refreshEventsSince(projectId: string | null, from: Date): SQL {
  const scope = projectId === null ? sql`` : sql`and e.project_id = ${projectId}`;
  return sql`
    select e.project_id, e.type, e.user_id, e.team_id, e.country_code, e.occurred_at, e.data->>'is_anonymous' as anonymous
    from events e where e.type = ${TOKEN_REFRESH} and e.occurred_at >= ${from.toISOString()}::timestamptz ${scope}`;
}

type Rows<T> = { rows: T[] };

/** Midnight UTC `PREVIOUS_DAY_REACH` days before `now`'s day: where the repair's recount starts. */
function repairStart(now: Date): Date {
  const day = 24 * 3600 * 1000;
  return new Date((Math.floor(now.getTime() / day) - PREVIOUS_DAY_REACH) * day);
}

/**
 * The rows since `from` that differ from a recount of the events, with the recount's values (`expected` false for
 * a row no event supports). A previous day before `from` cannot be known from the recount, and means the same to
 * every figure as none: both sides read as none there.
 */
function driftSql(projectId: string | null, from: Date) {
  const fromDay = sql`${from.toISOString().slice(0, 10)}::date`;
  const scope = projectId === null ? sql`` : sql`and project_id = ${projectId}`;
  const since = (column: SQL) => sql`case when ${column} >= ${fromDay} then ${column} end`;
  return sql`
    select coalesce(x.project_id, a.project_id) as project_id, coalesce(x.kind, a.kind) as kind,
      coalesce(x.day, a.day) as day, coalesce(x.subject, a.subject) as subject, x.project_id is not null as expected,
      x.known, x.batch_previous as previous_day, x.batch_known_previous as known_previous_day, x.country, x.country_at,
      x.known_country, x.known_country_at, x.created_day
    from (
      select r.*, ${createdDayOf(sql`r`)} as created_day from (${refreshDaysOf(refreshEventsSince(projectId, from))}) r
    ) x
    full join (select * from activity_days where day >= ${fromDay} ${scope}) a
      on a.project_id = x.project_id and a.kind = x.kind and a.day = x.day and a.subject = x.subject
    where x.project_id is null or a.project_id is null
      or (x.known, x.batch_previous, x.batch_known_previous, x.country, x.known_country, x.created_day)
        is distinct from (a.known, ${since(sql`a.previous_day`)}, ${since(sql`a.known_previous_day`)}, a.country,
          a.known_country, a.created_day)`;
}

/** Per count cell since `from`, what a recount of the rows says minus what the counts hold, where they differ. */
function countDriftSql(projectId: string | null, from: Date) {
  const fromDay = sql`${from.toISOString().slice(0, 10)}::date`;
  const scope = projectId === null ? sql`` : sql`and project_id = ${projectId}`;
  return sql`
    select coalesce(x.project_id, a.project_id) as project_id, coalesce(x.kind, a.kind) as kind,
      coalesce(x.known_only, a.known_only) as known_only, coalesce(x.day, a.day) as day, coalesce(x.gap, a.gap) as gap,
      coalesce(x.n, 0) - coalesce(a.subjects, 0) as n
    from (
      select project_id, kind, known_only, day, gap, sum(n)::int as n
      from (${countsOf(sql`(select * from ${activityDays} where day >= ${fromDay} ${scope})`, 1)}) counted
      group by project_id, kind, known_only, day, gap
    ) x
    full join (select * from ${activityDayCounts} where day >= ${fromDay} ${scope}) a
      on a.project_id = x.project_id and a.kind = x.kind and a.known_only = x.known_only and a.day = x.day
        and a.gap = x.gap
    where coalesce(x.n, 0) <> coalesce(a.subjects, 0)`;
}

/** How many count cells (days, new subjects and countries) of the last 32 days differ from a recount of the rows. */
export async function activityCountDrift(db: Database, projectId: string, now = new Date()): Promise<number> {
  const from = repairStart(now);
  const result = (await db.execute(sql`
    select (select count(*) from (${countDriftSql(projectId, from)}) days)::int
      + (select count(*) from (${newCountDriftSql(projectId, from)}) new)::int
      + (select count(*) from (${countryDriftSql(projectId, from)}) countries)::int as cells`)) as unknown as Rows<{
    cells: number;
  }>;
  return Number(result.rows[0]?.cells ?? 0);
}

/** Per new-count cell since `from`, what a recount of the rows says minus what the counts hold. */
function newCountDriftSql(projectId: string | null, from: Date) {
  const fromDay = sql`${from.toISOString().slice(0, 10)}::date`;
  const scope = projectId === null ? sql`` : sql`and project_id = ${projectId}`;
  return sql`
    select coalesce(x.project_id, a.project_id) as project_id, coalesce(x.kind, a.kind) as kind,
      coalesce(x.known_only, a.known_only) as known_only, coalesce(x.day, a.day) as day, coalesce(x.gap, a.gap) as gap,
      coalesce(x.created_day, a.created_day) as created_day, coalesce(x.n, 0) - coalesce(a.subjects, 0) as n
    from (
      select project_id, kind, known_only, day, gap, created_day, sum(n)::int as n
      from (${newCountsOf(sql`(select * from ${activityDays} where day >= ${fromDay} ${scope})`, 1)}) counted
      group by project_id, kind, known_only, day, gap, created_day
    ) x
    full join (select * from ${activityNewCounts} where day >= ${fromDay} ${scope}) a
      on a.project_id = x.project_id and a.kind = x.kind and a.known_only = x.known_only and a.day = x.day
        and a.gap = x.gap and a.created_day = x.created_day
    where coalesce(x.n, 0) <> coalesce(a.subjects, 0)`;
}

/** Per country cell since `from`, what a recount of the rows' latest countries says minus what the counts hold. */
function countryDriftSql(projectId: string | null, from: Date) {
  const fromDay = sql`${from.toISOString().slice(0, 10)}::date`;
  const scope = projectId === null ? sql`` : sql`and project_id = ${projectId}`;
  return sql`
    select coalesce(x.project_id, a.project_id) as project_id, coalesce(x.known_only, a.known_only) as known_only,
      coalesce(x.day, a.day) as day, coalesce(x.country, a.country) as country,
      coalesce(x.n, 0) - coalesce(a.users, 0) as n
    from (
      select project_id, known_only, day, country, count(*)::int as n from (
        select distinct on (project_id, subject, known_only) project_id, subject, known_only, day, country
        from (${countryCandidatesOf(sql`(select * from ${activityDays} where day >= ${fromDay} ${scope})`)}) candidates
        order by project_id, subject, known_only, day desc
      ) latest
      group by project_id, known_only, day, country
    ) x
    full join (select * from ${activityCountryCounts} where day >= ${fromDay} ${scope}) a
      on a.project_id = x.project_id and a.known_only = x.known_only and a.day = x.day and a.country = x.country
    where coalesce(x.n, 0) <> coalesce(a.users, 0)`;
}

export type ActivityDayDrift = { kind: number; day: string; subject: string; expected: boolean };

/** The rows of the last 32 days that a recount of the events would change (none, unless something drifted). */
export async function activityDayDrift(
  db: Database,
  projectId: string,
  now = new Date(),
): Promise<ActivityDayDrift[]> {
  const result = (await db.execute(sql`
    select kind, to_char(day, 'YYYY-MM-DD') as day, subject, expected
    from (${driftSql(projectId, repairStart(now))}) drift order by kind, day, subject`)) as unknown as Rows<ActivityDayDrift>;
  return result.rows.map((row) => ({ ...row, kind: Number(row.kind) }));
}

/**
 * Sets the rows of the last 32 days to what the events say; returns the rows corrected. Drift comes from a batch
 * written by an instance of the previous release, events of one subject across midnight flushed by two instances
 * out of order (a previous day missed), or a row edited by hand. One statement reads the recount and the rows and
 * writes the difference, in key order like the writer, so the two lock rows in the same order; a flush that
 * commits meanwhile is not in its snapshot and left alone. One instance repairs a project at a time (an advisory
 * lock).
 */
export async function repairActivityDays(
  db: Database,
  projectId: string | null = null,
  now = new Date(),
): Promise<number> {
  if (projectId === null) {
    // Project by project: each recount is then a range of `events_project_type_time_idx`, where one over all
    // projects would read the whole event log.
    const all = await db.select({ id: projects.id }).from(projects);
    let corrected = 0;
    for (const { id } of all) corrected += await repairActivityDays(db, id, now);
    return corrected;
  }
  return db.transaction(async (tx) => {
    const locked = (await tx.execute(
      sql`select pg_try_advisory_xact_lock(hashtextextended(${`activity-days-repair ${projectId}`}, 0)) as locked`,
    )) as unknown as Rows<{ locked: boolean }>;
    if (!locked.rows[0]?.locked) return 0;
    const result = (await tx.execute(sql`
      with drift as materialized (${driftSql(projectId, repairStart(now))}),
      removed as (
        delete from activity_days a using drift d
        where not d.expected and a.project_id = d.project_id and a.kind = d.kind and a.day = d.day
          and a.subject = d.subject
        returning 1
      ),
      fixed as (
        insert into activity_days as a (project_id, kind, day, subject, known, previous_day, known_previous_day,
          country, country_at, known_country, known_country_at, created_day)
        select project_id, kind, day, subject, known, previous_day, known_previous_day, country, country_at,
          known_country, known_country_at, created_day
        from drift where expected order by project_id, kind, day, subject
        on conflict (project_id, kind, day, subject) do update set known = excluded.known,
          previous_day = excluded.previous_day, known_previous_day = excluded.known_previous_day,
          country = excluded.country, country_at = excluded.country_at, known_country = excluded.known_country,
          known_country_at = excluded.known_country_at, created_day = excluded.created_day
        returning 1
      )
      select (select count(*) from removed)::int + (select count(*) from fixed)::int as corrected`)) as unknown as Rows<{
      corrected: number;
    }>;
    // The counts recounted from the rows as the statement above left them, the difference added: a flush that
    // commits meanwhile adds its own change on top, and both add up.
    const cells = (await tx.execute(sql`
      with drift as materialized (${countDriftSql(projectId, repairStart(now))}),
      added as (${addToCounts(sql`select * from drift`)} returning 1)
      select count(*)::int as cells from added`)) as unknown as Rows<{ cells: number }>;
    const newCells = (await tx.execute(sql`
      with drift as materialized (${newCountDriftSql(projectId, repairStart(now))}),
      added as (${addToNewCounts(sql`select * from drift`)} returning 1)
      select count(*)::int as cells from added`)) as unknown as Rows<{ cells: number }>;
    const countryCells = (await tx.execute(sql`
      with drift as materialized (${countryDriftSql(projectId, repairStart(now))}),
      added as (${addToCountryCounts(sql`select * from drift`)} returning 1)
      select count(*)::int as cells from added`)) as unknown as Rows<{ cells: number }>;
    return (
      Number(result.rows[0]?.corrected ?? 0) +
      Number(cells.rows[0]?.cells ?? 0) +
      Number(newCells.rows[0]?.cells ?? 0) +
      Number(countryCells.rows[0]?.cells ?? 0)
    );
  });
}
