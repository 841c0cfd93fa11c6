import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { projectIdColumn, projects } from "../projects/schema.ts";

/**
 * The items ledger (PROTOCOL-EXTRA §2.2): one row per change of an item's quantity for one customer, never updated
 * or deleted (but with its project). A customer's quantity is computed from its rows and from the items its
 * purchases include (ledger.ts). `customer_id` is text because custom customers are any string the app chooses;
 * user and team customers are checked to exist in the project when a change is written.
 */
export const itemQuantityChanges = pgTable(
  "item_quantity_changes",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    customerType: text("customer_type", { enum: ["user", "team", "custom"] }).notNull(),
    customerId: text("customer_id").notNull(),
    itemId: text("item_id").notNull(),
    quantity: bigint("quantity", { mode: "number" }).notNull(),
    description: text("description"),
    /** When a positive change's unused remainder is taken away again, or a negative change is given back. */
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    index("item_quantity_changes_customer_item_idx").on(
      t.projectId,
      t.customerType,
      t.customerId,
      t.itemId,
      t.createdAt,
    ),
    index("item_quantity_changes_project_created_idx").on(t.projectId, t.createdAt),
  ],
);

export type ItemQuantityChangeRow = typeof itemQuantityChanges.$inferSelect;

/**
 * Products a customer holds (PROTOCOL-EXTRA §2.2): one row per one-time purchase or subscription, whatever its
 * source (the purchase page in test mode, a server's grant, a payment provider). The product is kept as the snapshot
 * the customer bought (`product`, the protocol's inline-product shape), so a later catalogue edit changes nothing
 * already sold. Rows are updated only to end them: a cancellation sets `ends_at`, a refund `refunded_at`.
 */
export const productPurchases = pgTable(
  "product_purchases",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    customerType: text("customer_type", { enum: ["user", "team", "custom"] }).notNull(),
    customerId: text("customer_id").notNull(),
    /** Null for a product given inline by a server. */
    productId: text("product_id"),
    product: jsonb("product").$type<Record<string, unknown>>().notNull(),
    priceId: text("price_id"),
    quantity: integer("quantity").notNull(),
    kind: text("kind", { enum: ["one_time", "subscription"] }).notNull(),
    source: text("source", { enum: ["test_mode", "api_grant", "purchase_page"] }).notNull(),
    testMode: boolean("test_mode").notNull(),
    /** A subscription's billing interval as `[count, unit]`; its periods follow each other from `created_at`. */
    interval: jsonb("interval").$type<[number, string]>(),
    /** Set when a subscription is cancelled: it ends then (the end of the period it was cancelled in). */
    endsAt: timestamp("ends_at", { withTimezone: true, mode: "date" }),
    cancelledAt: timestamp("cancelled_at", { withTimezone: true, mode: "date" }),
    refundedAt: timestamp("refunded_at", { withTimezone: true, mode: "date" }),
    /** The Stripe subscription or payment behind a purchase paid through Stripe (on the project's account). */
    stripeSubscriptionId: text("stripe_subscription_id"),
    stripePaymentIntentId: text("stripe_payment_intent_id"),
    /**
     * The owner's refund through `/internal/payments/transactions/refund` (one per purchase): its transaction id, when,
     * how many dollars went back and how much of the quantity was taken back (all of it or none), and Stripe's refund.
     */
    refundId: uuid("refund_id"),
    refundIssuedAt: timestamp("refund_issued_at", { withTimezone: true, mode: "date" }),
    refundAmountUsd: text("refund_amount_usd"),
    refundQuantity: integer("refund_quantity"),
    stripeRefundId: text("stripe_refund_id"),
    /** Makes a replayed purchase (the same purchase code, a provider's event) a no-op instead of a second grant. */
    idempotencyKey: text("idempotency_key"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    index("product_purchases_customer_idx").on(t.projectId, t.customerType, t.customerId, t.createdAt),
    index("product_purchases_project_created_idx").on(t.projectId, t.createdAt),
    index("product_purchases_stripe_subscription_idx").on(t.projectId, t.stripeSubscriptionId),
    index("product_purchases_stripe_payment_intent_idx").on(t.projectId, t.stripePaymentIntentId),
    index("product_purchases_project_refunds_idx")
      .on(t.projectId, t.refundIssuedAt)
      .where(sql`${t.refundIssuedAt} is not null`),
    uniqueIndex("product_purchases_idempotency_key_idx")
      .on(t.projectId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
  ],
);

export type ProductPurchaseRow = typeof productPurchases.$inferSelect;

/**
 * The project's Stripe connected account (PROTOCOL-EXTRA §2.5): created by `/internal/payments/setup`; Stripe's
 * webhook events name the account, which names the project.
 */
export const stripeAccounts = pgTable("stripe_accounts", {
  projectId: text("project_id")
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  accountId: text("account_id").notNull().unique(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
});

/** The Stripe customer (on the project's account) of each customer that started a card payment. */
export const stripeCustomers = pgTable(
  "stripe_customers",
  {
    projectId: projectIdColumn(),
    customerType: text("customer_type", { enum: ["user", "team", "custom"] }).notNull(),
    customerId: text("customer_id").notNull(),
    stripeCustomerId: text("stripe_customer_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.customerType, t.customerId] })],
);

/** The payment emails already sent (notifications.ts), one row per checkout or invoice, so a replay sends none. */
export const paymentNotifications = pgTable(
  "payment_notifications",
  {
    projectId: projectIdColumn(),
    key: text("key").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key] })],
);
