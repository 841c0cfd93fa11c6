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
 * metrics call runs them side by side with the other sections. One statement reads the window's page views and
 * clicks once (`w`) and aggregates them four ways; four statements read the same index range and heap rows four
 * times over. Each part's rows carry `part` and, for the ranked ones, their `rank` in the order asked for.
 */
export async function analyticsCounts(
  db: Database,
  projectId: string,
  window: MetricsWindow,
  includeAnonymous: boolean,
) {
  const result = (await db.execute(sql`
    with w as materialized (
      select to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day, e.type, e.user_id, e.country_code,
        coalesce(nullif(e.data->>'referrer', ''), '(direct)') as referrer
      from events e
      where e.project_id = ${projectId} and e.type in ('$page-view', '$click')
        and e.occurred_at >= ${window.start.toISOString()}::timestamptz and ${anonymityFilter(includeAnonymous)}
    )
    select 'daily' as part, day as key, type, count(*)::int as events, count(distinct user_id)::int as visitors,
      0::bigint as rank
    from w group by day, type
    union all
    select 'visitors', null, null, 0, count(distinct user_id)::int, 0 from w where type = '$page-view'
    union all
    (select 'referrer', referrer, null, 0, count(distinct user_id)::int,
      row_number() over (order by count(distinct user_id) desc, referrer)
    from w where type = '$page-view' group by referrer order by 6 limit ${TOP_REFERRERS_LIMIT})
    union all
    (select 'region', country_code, null, 0, count(distinct user_id)::int,
      row_number() over (order by count(distinct user_id) desc, country_code)
    from w where type = '$page-view' and country_code is not null group by country_code order by 6 limit 1)`)) as unknown as Rows<{
    part: "daily" | "visitors" | "referrer" | "region";
    key: string | null;
    type: string | null;
    events: number;
    visitors: number;
    rank: number | string;
  }>;
  const partOf = (part: string) =>
    result.rows.filter((row) => row.part === part).sort((x, y) => Number(x.rank) - Number(y.rank));
  const views = new Map<string, number>();
  const clicks = new Map<string, number>();
  const dailyVisitors = new Map<string, number>();
  for (const row of partOf("daily")) {
    const day = row.key ?? "";
    if (row.type === "$page-view") {
      views.set(day, Number(row.events));
      dailyVisitors.set(day, Number(row.visitors));
    } else {
      clicks.set(day, Number(row.events));
    }
  }
  const topRegion = partOf("region")[0];
  return {
    views,
    clicks,
    dailyVisitors,
    visitors: Number(partOf("visitors")[0]?.visitors ?? 0),
    referrers: partOf("referrer").map((row) => ({ referrer: row.key ?? "", visitors: Number(row.visitors) })),
    topRegion: topRegion
      ? { country_code: topRegion.key ?? "", visitors: Number(topRegion.visitors) }
      : undefined,
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
