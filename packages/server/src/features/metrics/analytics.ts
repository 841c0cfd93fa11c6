/**
 * `analytics_overview` and `payments_overview` (PROTOCOL-EXTRA §4.1). Page views and clicks are the `$page-view` /
 * `$click` events the SDKs send to POST /analytics/events/batch, read over the metrics window from the events
 * index. The payment figures come from the purchases (payments/metrics.ts: revenue is what was paid through the
 * purchase page; renewals paid at Stripe are not recorded). Session replays are not recorded.
 */
import { sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import type { PaymentCounts } from "../payments/metrics.ts";
import { anonymityFilter } from "./activity.ts";
import { type MetricsWindow, series } from "./window.ts";

export const TOP_REFERRERS_LIMIT = 100;

type Rows<T> = { rows: T[] };

export type AnalyticsCounts = Awaited<ReturnType<typeof analyticsCounts>>;

/**
 * The figures read from the events, apart from what they are combined with (`analyticsOverview`), so that the
 * metrics call runs these queries side by side with the other sections' rather than after them.
 */
export async function analyticsCounts(
  db: Database,
  projectId: string,
  window: MetricsWindow,
  includeAnonymous: boolean,
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
  return {
    views,
    clicks,
    dailyVisitors,
    visitors: Number(visitors.rows[0]?.visitors ?? 0),
    referrers: referrers.rows.map((row) => ({ referrer: row.referrer, visitors: Number(row.visitors) })),
    topRegion: regions.rows[0],
  };
}

/** `analytics_overview` from the counts, the users online (activity.ts) and the payment figures. */
export function analyticsOverview(
  window: MetricsWindow,
  counts: AnalyticsCounts,
  onlineLive: number,
  payments: PaymentCounts,
) {
  const { topRegion, visitors: visitorCount } = counts;
  return {
    daily_page_views: series(window, counts.views),
    daily_clicks: series(window, counts.clicks),
    daily_visitors: series(window, counts.dailyVisitors),
    daily_revenue: window.days.map((date) => ({
      date,
      new_cents: payments.revenueByDay.get(date) ?? 0,
      refund_cents: 0,
    })),
    total_revenue_cents: payments.revenueCents,
    total_replays: 0,
    recent_replays: 0,
    avg_session_seconds: 0,
    visitors: visitorCount,
    online_live: onlineLive,
    revenue_per_visitor: visitorCount > 0 ? Math.round(payments.revenueCents / visitorCount) / 100 : 0,
    top_referrers: counts.referrers,
    top_region: topRegion
      ? { country_code: topRegion.country_code, region_code: null, count: Number(topRegion.visitors) }
      : null,
  };
}

/** `payments_overview` from the purchases: every one-time purchase and subscription counts as an order. */
export function paymentsOverview(window: MetricsWindow, counts: PaymentCounts) {
  const orders = counts.oneTimePurchases + counts.subscriptions;
  return {
    subscriptions_by_status: Object.fromEntries(
      [
        ["active", counts.activeSubscriptions],
        ["canceled", counts.endedSubscriptions],
      ].filter(([, count]) => Number(count) > 0),
    ) as Record<string, number>,
    active_subscription_count: counts.activeSubscriptions,
    total_one_time_purchases: counts.oneTimePurchases,
    daily_subscriptions: series(window, counts.subscriptionsByDay),
    revenue_cents: counts.revenueCents,
    mrr_cents: counts.windowRevenueCents,
    total_orders: orders,
    // Orders are recorded only once paid or granted.
    checkout_conversion_rate: orders > 0 ? 100 : 0,
  };
}
