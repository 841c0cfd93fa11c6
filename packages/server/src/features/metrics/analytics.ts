/**
 * `analytics_overview` and `payments_overview` (PROTOCOL-EXTRA §4.1). Page views and clicks are the `$page-view` /
 * `$click` events the SDKs send to POST /analytics/events/batch, read over the metrics window from the events
 * index. Payments are not built yet: every payment figure (subscriptions, invoices, revenue) is zero or empty
 * until they are, and so are the analytics figures made of revenue. Session replays are not recorded either.
 */
import { sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { anonymityFilter } from "./activity.ts";
import { type MetricsWindow, series } from "./window.ts";

export const TOP_REFERRERS_LIMIT = 100;

type Rows<T> = { rows: T[] };

export async function analyticsMetrics(
  db: Database,
  projectId: string,
  window: MetricsWindow,
  includeAnonymous: boolean,
  onlineLive: number,
) {
  const from = sql`from events e
    where e.project_id = ${projectId} and e.type in ('$page-view', '$click')
      and e.occurred_at >= ${window.start.toISOString()}::timestamptz and ${anonymityFilter(includeAnonymous)}`;
  const pageViews = sql`from events e
    where e.project_id = ${projectId} and e.type = '$page-view'
      and e.occurred_at >= ${window.start.toISOString()}::timestamptz and ${anonymityFilter(includeAnonymous)}`;
  const [daily, visitors, referrers, regions] = (await Promise.all([
    db.execute(sql`
      select to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day, e.type,
        count(*)::int as events, count(distinct e.user_id)::int as visitors
      ${from}
      group by 1, 2`),
    db.execute(sql`select count(distinct e.user_id)::int as visitors ${pageViews}`),
    db.execute(sql`
      select coalesce(nullif(e.data->>'referrer', ''), '(direct)') as referrer,
        count(distinct e.user_id)::int as visitors
      ${pageViews}
      group by 1 order by 2 desc, 1 limit ${TOP_REFERRERS_LIMIT}`),
    db.execute(sql`
      select e.country_code, count(distinct e.user_id)::int as visitors
      ${pageViews} and e.country_code is not null
      group by 1 order by 2 desc, 1 limit 1`),
  ])) as unknown as [
    Rows<{ day: string; type: string; events: number; visitors: number }>,
    Rows<{ visitors: number }>,
    Rows<{ referrer: string; visitors: number }>,
    Rows<{ country_code: string; visitors: number }>,
  ];
  const views = new Map<string, number>();
  const clicks = new Map<string, number>();
  const dailyVisitors = new Map<string, number>();
  for (const row of daily.rows) {
    if (row.type === "$page-view") {
      views.set(row.day, Number(row.events));
      dailyVisitors.set(row.day, Number(row.visitors));
    } else {
      clicks.set(row.day, Number(row.events));
    }
  }
  const topRegion = regions.rows[0];
  return {
    daily_page_views: series(window, views),
    daily_clicks: series(window, clicks),
    daily_visitors: series(window, dailyVisitors),
    daily_revenue: window.days.map((date) => ({ date, new_cents: 0, refund_cents: 0 })),
    total_revenue_cents: 0,
    total_replays: 0,
    recent_replays: 0,
    avg_session_seconds: 0,
    visitors: Number(visitors.rows[0]?.visitors ?? 0),
    online_live: onlineLive,
    revenue_per_visitor: 0,
    top_referrers: referrers.rows.map((row) => ({ referrer: row.referrer, visitors: Number(row.visitors) })),
    top_region: topRegion
      ? { country_code: topRegion.country_code, region_code: null, count: Number(topRegion.visitors) }
      : null,
  };
}

/** Payments are not built yet (no subscriptions, purchases or invoices exist): the protocol's shape, all zero. */
export function paymentsOverview(window: MetricsWindow) {
  return {
    subscriptions_by_status: {},
    active_subscription_count: 0,
    total_one_time_purchases: 0,
    daily_subscriptions: series(window, new Map()),
    revenue_cents: 0,
    mrr_cents: 0,
    total_orders: 0,
    checkout_conversion_rate: 0,
  };
}
