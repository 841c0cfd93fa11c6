import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { preparedSql } from "../../db/prepared-sql.ts";
import {
  addToCountryCounts,
  addToCounts,
  addToNewCounts,
  countryCandidatesOf,
  countsOf,
  createdDayOf,
  newCountsOf,
  PREVIOUS_DAY_REACH,
  refreshDaysOf,
} from "./activity-days.ts";
import { activityDays, events } from "./schema.ts";

/** An activity event as the event log stores it (the activity writer, activity/analytics.ts, buffers them). */
export type ActivityRow = {
  projectId: string;
  id: string;
  type: string;
  data: Record<string, unknown>;
  userId: string | null;
  teamId: string | null;
  countryCode: string | null;
  occurredAt: Date;
  dispatchedAt: Date;
};

/**
 * A batch of activity rows in one prepared INSERT with one JSON parameter. Drizzle's multi-row insert built the SQL
 * text and nine bind parameters per row on every flush (about 4% of a refresh grant's CPU); here the rows are one
 * `JSON.stringify` and PostgreSQL expands them (`jsonb_to_recordset` keeps the array's order, so `seq` does too).
 * The same statement adds the batch's token refreshes to the `activity_days` rollup (activity-days.ts), so the
 * events and the rollup commit together. Its rows are upserted in key order: two instances flushing at once lock
 * them in the same order and never deadlock. A subject's previous day is the latest of its earlier rows, looked up
 * (32 days back at most, the index's range), and of the batch's own earlier days. What the upserts changed goes on
 * to `activity_day_counts`: the rows as they are now counted in, as they were before taken out (`old`, read in the
 * statement's snapshot; two instances upserting one row at the same moment both take out the version before both,
 * a drift the repair corrects), counts again in key order. Each user given a country moves, in
 * `activity_country_counts`, from their latest country day before the statement (`before`) to the latest one now
 * (`after`: the later of that and the rows just written, the written one on the same day as it holds both).
 */
const insertActivityRows = preparedSql<{ rows: string }, never>(
  "insert_activity_events",
  sql`
    with inserted as (
      insert into ${events} (project_id, id, type, data, user_id, team_id, country_code, occurred_at, dispatched_at)
      select r."projectId", r.id, r.type, r.data, r."userId", r."teamId", r."countryCode", r."occurredAt",
        r."dispatchedAt"
      from jsonb_to_recordset(${sql.placeholder("rows")}::jsonb) as r("projectId" text, id uuid, type text,
        data jsonb, "userId" uuid, "teamId" uuid, "countryCode" text, "occurredAt" timestamptz,
        "dispatchedAt" timestamptz)
      returning project_id, type, user_id, team_id, country_code, occurred_at, data->>'is_anonymous' as anonymous
    ),
    batch as (
      select b.project_id, b.kind, b.day, b.subject, b.known,
        greatest(b.batch_previous, (${previousDay(sql`false`)})) as previous_day,
        greatest(b.batch_known_previous, (${previousDay(sql`true`)})) as known_previous_day,
        b.country, b.country_at, b.known_country, b.known_country_at, ${createdDayOf(sql`b`)} as created_day
      from (${refreshDaysOf(sql`select * from inserted`)}) b
    ),
    old as (
      select a.* from ${activityDays} a join batch b
        on a.project_id = b.project_id and a.kind = b.kind and a.day = b.day and a.subject = b.subject
    ),
    upserted as (
      insert into ${activityDays} as a (project_id, kind, day, subject, known, previous_day, known_previous_day,
        country, country_at, known_country, known_country_at, created_day)
      select * from batch order by project_id, kind, day, subject
      on conflict (project_id, kind, day, subject) do update set known = a.known or excluded.known,
        previous_day = greatest(a.previous_day, excluded.previous_day),
        known_previous_day = greatest(a.known_previous_day, excluded.known_previous_day),
        country = case when excluded.country_at >= a.country_at or a.country_at is null
          then coalesce(excluded.country, a.country) else a.country end,
        country_at = greatest(a.country_at, excluded.country_at),
        known_country = case when excluded.known_country_at >= a.known_country_at or a.known_country_at is null
          then coalesce(excluded.known_country, a.known_country) else a.known_country end,
        known_country_at = greatest(a.known_country_at, excluded.known_country_at), created_day = excluded.created_day
      returning a.project_id, a.kind, a.day, a.subject, a.known, a.previous_day, a.known_previous_day, a.country,
        a.known_country, a.created_day
    ),
    touched as (select distinct project_id, subject from upserted where kind = 0 and country is not null),
    before as (
      select t.project_id, t.subject, v.known_only, l.day, l.country
      from touched t cross join (values (false), (true)) as v(known_only)
      cross join lateral (
        select p.day, case when v.known_only then p.known_country else p.country end as country
        from ${activityDays} p
        where p.project_id = t.project_id and p.kind = 0 and p.subject = t.subject
          and (case when v.known_only then p.known_country else p.country end) is not null
        order by p.day desc limit 1
      ) l
    ),
    after as (
      select distinct on (project_id, subject, known_only) project_id, subject, known_only, day, country
      from (
        select project_id, subject, known_only, day, country, 0 as fresh from before
        union all
        select project_id, subject, known_only, day, country, 1 from (${countryCandidatesOf(sql`upserted`)}) written
      ) candidates
      order by project_id, subject, known_only, day desc, fresh desc
    ),
    new_counted as (
      ${addToNewCounts(sql`${newCountsOf(sql`upserted`, 1)} union all ${newCountsOf(sql`old`, -1)}`)}
    ),
    countries as (
      ${addToCountryCounts(sql`
        select project_id, known_only, day, country, 1 as n from after
        union all
        select project_id, known_only, day, country, -1 from before`)}
    )
    ${addToCounts(sql`${countsOf(sql`upserted`, 1)} union all ${countsOf(sql`old`, -1)}`)}`,
);

/** The latest earlier day of `b`'s subject in the rollup, among known rows only when `known`. */
function previousDay(known: SQL) {
  return sql`select max(p.day) from ${activityDays} p
    where p.project_id = b.project_id and p.kind = b.kind and p.subject = b.subject and p.day < b.day
      and p.day >= b.day - ${sql.raw(String(PREVIOUS_DAY_REACH))} and (p.known or not ${known})`;
}

export function insertActivity(db: Database, rows: readonly ActivityRow[]): Promise<never[]> {
  return insertActivityRows(db, { rows: JSON.stringify(rows) });
}
