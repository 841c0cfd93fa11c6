// Seeds a project for bench/metrics.mjs with bulk SQL (INSERT ... SELECT over generate_series): seconds for what
// row-by-row creation would take an hour over.
import { sql } from "drizzle-orm";

/** Rows per INSERT ... SELECT: big enough to be quick, small enough to keep PGlite's memory flat. */
const CHUNK = 100_000;
const HISTORY_DAYS = 365;

/**
 * Users signed up over two years (one in 20 anonymous, a third with a password), a verified or unverified primary
 * email for the others, one team per ten users; then `eventCount` events over the last year in time order:
 * 85% token refreshes (five countries), 10% page views, 5% clicks, spread over the users; and one email per 20
 * users over the last 60 days.
 */
export async function seedMetricsProject(db, projectId, userCount, eventCount) {
  await db.execute(sql`
    insert into users (project_id, id, display_name, password_hash, is_anonymous, otp_auth_enabled, signed_up_at, last_active_at)
    select ${projectId}, gen_random_uuid(), 'User ' || g,
      case when g % 3 = 0 then '$argon2id$bench' end, g % 20 = 0, g % 7 = 0,
      now() - interval '730 days' * (1 - g::float8 / ${userCount}::int),
      now() - interval '60 days' * random()
    from generate_series(1, ${userCount}::int) g`);
  await db.execute(sql`
    insert into contact_channels (project_id, id, user_id, type, value, is_verified, is_primary, used_for_auth, created_at)
    select project_id, gen_random_uuid(), id, 'email', id::text || '@example.com', random() < 0.7, true, true, signed_up_at
    from users where project_id = ${projectId} and not is_anonymous`);
  await db.execute(sql`
    insert into teams (project_id, id, display_name, created_at)
    select ${projectId}, gen_random_uuid(), 'Team ' || g, now() - interval '700 days' * random()
    from generate_series(1, ${Math.ceil(userCount / 10)}::int) g`);
  // Users and teams numbered, so that events can pick one by arithmetic.
  await db.execute(sql`create temporary table bench_users as
    select id, (row_number() over ())::int as n, is_anonymous from users where project_id = ${projectId}`);
  await db.execute(sql`create temporary table bench_teams as
    select id, (row_number() over ())::int as n from teams where project_id = ${projectId}`);
  await db.execute(sql`create index on bench_users (n)`);
  await db.execute(sql`create index on bench_teams (n)`);
  const teamCount = Math.ceil(userCount / 10);
  for (let start = 0; start < eventCount; start += CHUNK) {
    const end = Math.min(start + CHUNK, eventCount);
    await db.execute(sql`
      insert into events (project_id, id, type, data, user_id, team_id, country_code, occurred_at, dispatched_at)
      select ${projectId}, gen_random_uuid(),
        case when g % 20 < 17 then '$token-refresh' when g % 20 < 19 then '$page-view' else '$click' end,
        jsonb_build_object('is_anonymous', u.is_anonymous, 'referrer', case when g % 4 = 0 then 'https://news.example' else '' end,
          'ip_info', jsonb_build_object('country_code', (array['US','GB','DE','FR','JP'])[1 + g % 5])),
        u.id, t.id, (array['US','GB','DE','FR','JP'])[1 + g % 5],
        now() - interval '${sql.raw(String(HISTORY_DAYS))} days' * (1 - g::float8 / ${eventCount}::int),
        now()
      from generate_series(${start + 1}::int, ${end}::int) g
      join bench_users u on u.n = 1 + (g::bigint * 7919) % ${userCount}::int
      join bench_teams t on t.n = 1 + (g::bigint * 104729) % ${teamCount}::int`);
    if (process.stderr.isTTY) process.stderr.write(`\r  events: ${end}/${eventCount}`);
  }
  if (process.stderr.isTTY) process.stderr.write("\n");
  await db.execute(sql`
    insert into sent_emails (project_id, id, "to", kind, status, subject, created_at, sent_at)
    select ${projectId}, gen_random_uuid(), '["someone@example.com"]'::jsonb, 'custom',
      (array['sent','sent','sent','failed','queued'])[1 + g % 5], 'Hello', now() - interval '60 days' * random(), now()
    from generate_series(1, ${Math.ceil(userCount / 20)}::int) g`);
  await db.execute(sql`drop table bench_users`);
  await db.execute(sql`drop table bench_teams`);
  for (const table of ["users", "contact_channels", "teams", "events", "sent_emails"])
    await db.execute(sql.raw(`analyze ${table}`));
}
