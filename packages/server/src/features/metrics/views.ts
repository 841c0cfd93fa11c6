/** The answer of `GET /internal/metrics` (PROTOCOL-EXTRA §4.1), field by field. */
import { z } from "zod";
import { serverUserSchema } from "../users/views.ts";

const int = z.number().int();
const dataPoints = z.array(z.object({ date: z.string(), activity: int }));
const split = z.object({ total: dataPoints, new: dataPoints, retained: dataPoints, reactivated: dataPoints });

export const metricsResponseSchema = z.object({
  total_users: int,
  daily_users: dataPoints,
  daily_active_users: dataPoints,
  users_by_country: z.record(z.string(), int),
  recently_registered: z.array(serverUserSchema),
  recently_active: z.array(serverUserSchema),
  login_methods: z.array(z.object({ method: z.string(), count: int })),
  auth_overview: z.object({
    verified_users: int,
    unverified_users: int,
    anonymous_users: int,
    total_teams: int,
    mau: int,
    daily_active_users_split: split,
    daily_active_teams_split: split,
    total_users_filtered: int,
  }),
  payments_overview: z.object({
    subscriptions_by_status: z.record(z.string(), int),
    active_subscription_count: int,
    total_one_time_purchases: int,
    daily_subscriptions: dataPoints,
    revenue_cents: int,
    mrr_cents: int,
    total_orders: int,
    checkout_conversion_rate: z.number(),
  }),
  email_overview: z.object({
    emails_by_status: z.record(z.string(), int),
    total_emails: int,
    daily_emails: dataPoints,
    daily_emails_by_status: z.array(z.object({ date: z.string(), ok: int, error: int, in_progress: int })),
    emails_sent: int,
    recent_emails: z.array(
      z.object({ id: z.string(), status: z.string(), subject: z.string(), created_at_millis: z.number() }),
    ),
    deliverability_status: z.object({ delivered: int, bounced: int, error: int, in_progress: int }),
    deliverability_rate: z.number(),
    bounce_rate: z.number(),
    click_rate: z.number(),
  }),
  analytics_overview: z.object({
    daily_page_views: dataPoints,
    daily_clicks: dataPoints,
    daily_visitors: dataPoints,
    daily_revenue: z.array(z.object({ date: z.string(), new_cents: int, refund_cents: int })),
    total_revenue_cents: int,
    total_replays: int,
    recent_replays: int,
    avg_session_seconds: z.number(),
    visitors: int,
    online_live: int,
    revenue_per_visitor: z.number(),
    top_referrers: z.array(z.object({ referrer: z.string(), visitors: int })),
    top_region: z
      .object({ country_code: z.string().nullable(), region_code: z.string().nullable(), count: int })
      .nullable(),
  }),
});

export type MetricsResponse = z.infer<typeof metricsResponseSchema>;
