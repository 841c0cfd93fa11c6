/**
 * The payments figures of `GET /internal/metrics` (PROTOCOL-EXTRA §4.1 `payments_overview`), from the purchases
 * table in one aggregate query. Revenue is what Gatehouse knows was paid: each card purchase's price (USD, times its
 * quantity) when it was bought, not refunded; test-mode purchases and server grants are free. Subscription renewals
 * are paid at Stripe and not recorded here, so revenue and MRR count a subscription's first payment only.
 */
import { sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { productPurchases } from "./schema.ts";

export type PaymentCounts = {
  activeSubscriptions: number;
  endedSubscriptions: number;
  oneTimePurchases: number;
  subscriptions: number;
  revenueCents: number;
  windowRevenueCents: number;
  subscriptionsByDay: Map<string, number>;
  revenueByDay: Map<string, number>;
};

export async function paymentCounts(
  db: Database,
  projectId: string,
  window: { start: Date; now: Date },
): Promise<PaymentCounts> {
  const t = productPurchases;
  const now = sql`${window.now.toISOString()}::timestamptz`;
  const start = sql`${window.start.toISOString()}::timestamptz`;
  const live = sql`(${t.endsAt} is null or ${t.endsAt} > ${now}) and ${t.refundedAt} is null`;
  const paidCents = sql`case when ${t.source} = 'purchase_page' and not ${t.testMode} and ${t.refundedAt} is null
    then coalesce(round((${t.product} -> 'prices' -> ${t.priceId} ->> 'USD')::numeric * 100), 0) * ${t.quantity}
    else 0 end`;
  const day = sql<string>`to_char(${t.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  type Rows<T> = { rows: T[] };
  const [totals, daily] = (await Promise.all([
    db.execute(sql`
      select
        count(*) filter (where ${t.kind} = 'subscription' and ${live}) as active,
        count(*) filter (where ${t.kind} = 'subscription' and not (${live})) as ended,
        count(*) filter (where ${t.kind} = 'one_time') as one_time,
        count(*) filter (where ${t.kind} = 'subscription') as subscriptions,
        coalesce(sum(${paidCents}), 0) as revenue,
        coalesce(sum(${paidCents}) filter (where ${t.createdAt} >= ${start}), 0) as window_revenue
      from ${t} where ${t.projectId} = ${projectId}`),
    db.execute(sql`
      select ${day} as day,
        count(*) filter (where ${t.kind} = 'subscription') as subscriptions,
        coalesce(sum(${paidCents}), 0) as revenue
      from ${t} where ${t.projectId} = ${projectId} and ${t.createdAt} >= ${start}
      group by 1`),
  ])) as [
    Rows<Record<string, string | number | null>>,
    Rows<{ day: string; subscriptions: string | number; revenue: string | number }>,
  ];
  const row = totals.rows[0] ?? {};
  const number = (value: unknown) => Number(value ?? 0);
  return {
    activeSubscriptions: number(row.active),
    endedSubscriptions: number(row.ended),
    oneTimePurchases: number(row.one_time),
    subscriptions: number(row.subscriptions),
    revenueCents: number(row.revenue),
    windowRevenueCents: number(row.window_revenue),
    subscriptionsByDay: new Map(daily.rows.map((each) => [each.day, number(each.subscriptions)])),
    revenueByDay: new Map(daily.rows.map((each) => [each.day, number(each.revenue)])),
  };
}
