/**
 * The admin app's metrics (PROTOCOL-EXTRA §4.1): `getMetrics({includeAnonymous})` answers `GET /internal/metrics`
 * as the wire has it (snake_case, like the reference's `MetricsResponse` in stack-shared's admin-metrics), so a
 * dashboard written against that shape reads it unchanged.
 */
import { call, type Scope, withQuery } from "../objects/scope.ts";

export type MetricsDataPoint = { date: string; activity: number };
export type MetricsActivitySplit = {
  total: MetricsDataPoint[];
  new: MetricsDataPoint[];
  retained: MetricsDataPoint[];
  reactivated: MetricsDataPoint[];
};

/** An admin user read; the metrics lists carry at least these fields. */
export type MetricsRecentUser = {
  id: string;
  display_name: string | null;
  primary_email: string | null;
  profile_image_url: string | null;
  signed_up_at_millis: number;
  last_active_at_millis: number | null;
  [field: string]: unknown;
};

export type MetricsResponse = {
  total_users: number;
  daily_users: MetricsDataPoint[];
  daily_active_users: MetricsDataPoint[];
  users_by_country: Record<string, number>;
  recently_registered: MetricsRecentUser[];
  recently_active: MetricsRecentUser[];
  login_methods: { method: string; count: number }[];
  auth_overview: {
    verified_users: number;
    unverified_users: number;
    anonymous_users: number;
    total_teams: number;
    mau: number;
    daily_active_users_split: MetricsActivitySplit;
    daily_active_teams_split: MetricsActivitySplit;
    total_users_filtered: number;
  };
  payments_overview: {
    subscriptions_by_status: Record<string, number>;
    active_subscription_count: number;
    total_one_time_purchases: number;
    daily_subscriptions: MetricsDataPoint[];
    revenue_cents: number;
    mrr_cents: number;
    total_orders: number;
    checkout_conversion_rate: number;
  };
  email_overview: {
    emails_by_status: Record<string, number>;
    total_emails: number;
    daily_emails: MetricsDataPoint[];
    daily_emails_by_status: { date: string; ok: number; error: number; in_progress: number }[];
    emails_sent: number;
    recent_emails: { id: string; status: string; subject: string; created_at_millis: number }[];
    deliverability_status: { delivered: number; bounced: number; error: number; in_progress: number };
    deliverability_rate: number;
    bounce_rate: number;
    click_rate: number;
  };
  analytics_overview: {
    daily_page_views: MetricsDataPoint[];
    daily_clicks: MetricsDataPoint[];
    daily_visitors: MetricsDataPoint[];
    daily_revenue: { date: string; new_cents: number; refund_cents: number }[];
    total_revenue_cents: number;
    total_replays: number;
    recent_replays: number;
    avg_session_seconds: number;
    visitors: number;
    online_live: number;
    revenue_per_visitor: number;
    top_referrers: { referrer: string; visitors: number }[];
    top_region: { country_code: string | null; region_code: string | null; count: number } | null;
  };
};

export type GetMetricsOptions = {
  /** Count anonymous users too (default false). */
  includeAnonymous?: boolean;
};

export function metricsMethods(scope: Scope) {
  return {
    async getMetrics(options: GetMetricsOptions = {}): Promise<MetricsResponse> {
      return call<MetricsResponse>(
        scope,
        withQuery("/internal/metrics", { include_anonymous: options.includeAnonymous ? "true" : undefined }),
      );
    },
  };
}
