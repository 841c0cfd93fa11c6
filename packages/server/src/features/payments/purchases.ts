/**
 * The products customers hold (`product_purchases`, PROTOCOL-EXTRA §2.2): buying or granting one, reading what a
 * customer owns, cancelling a subscription. A customer owns a product while the quantity of its live purchases is
 * above zero. Subscriptions bought here (test mode, a server's grant) renew by themselves until cancelled; a
 * cancelled one lasts to the end of the period it was cancelled in.
 */
import { knownError } from "@gatehouse/shared";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { StatusError } from "../../http/status-error.ts";
import type { Customer, InlineProduct, ProductChoice } from "./catalogue.ts";
import { currentPeriod, type Interval, isPurchaseLive } from "./grants.ts";
import { type ProductPurchaseRow, productPurchases } from "./schema.ts";

export type PurchaseSource = ProductPurchaseRow["source"];

function whereCustomer(projectId: string, customer: Customer) {
  return and(
    eq(productPurchases.projectId, projectId),
    eq(productPurchases.customerType, customer.type),
    eq(productPurchases.customerId, customer.id),
  );
}

/** Every purchase of the customer, oldest first (live or not: ended ones still explain past grants). */
export async function listCustomerPurchases(
  db: Database,
  projectId: string,
  customer: Customer,
): Promise<ProductPurchaseRow[]> {
  return db
    .select()
    .from(productPurchases)
    .where(whereCustomer(projectId, customer))
    .orderBy(asc(productPurchases.createdAt), asc(productPurchases.id));
}

export function timelineOf(row: ProductPurchaseRow) {
  return {
    createdAt: row.createdAt,
    quantity: row.quantity,
    kind: row.kind,
    interval: (row.interval as Interval | null) ?? null,
    endsAt: row.endsAt,
    refundedAt: row.refundedAt,
  };
}

export function livePurchases(rows: readonly ProductPurchaseRow[], now: Date): ProductPurchaseRow[] {
  return rows.filter((row) => isPurchaseLive(timelineOf(row), now));
}

/** How many of the catalogue product the customer holds now. */
export function ownedQuantity(rows: readonly ProductPurchaseRow[], productId: string, now: Date): number {
  return livePurchases(rows, now)
    .filter((row) => row.productId === productId)
    .reduce((sum, row) => sum + row.quantity, 0);
}

/** The catalogue products of one product line (empty for none), for conflicts and switch options. */
export function productIdsInLine(config: RenderedConfig, lineId: string | null): string[] {
  if (lineId === null) return [];
  return Object.entries(config.payments.products)
    .filter(([, product]) => product.productLineId === lineId)
    .map(([id]) => id);
}

export type NewPurchase = {
  customer: Customer;
  choice: ProductChoice;
  priceId: string | null;
  quantity: number;
  source: PurchaseSource;
  testMode: boolean;
  /** A second purchase with the same key (a replayed purchase code) returns the first instead of granting again. */
  idempotencyKey?: string;
};

/**
 * Records a purchase or grant, with the checks that must see the customer's current holdings in the same step
 * (one advisory lock per customer): a non-stackable product owned already is PRODUCT_ALREADY_GRANTED, more than one
 * of it a plain 400; a one-time product in a line where the customer holds a one-time purchase is a plain 400; a
 * live subscription in the same product line is replaced (cancelled now), as a plan switch.
 */
export async function recordPurchase(
  db: Database,
  config: RenderedConfig,
  projectId: string,
  input: NewPurchase,
): Promise<{ row: ProductPurchaseRow; replayed: boolean }> {
  const { choice, customer } = input;
  if (!choice.product.stackable && input.quantity !== 1) {
    throw new StatusError(400, "This product is not stackable: it can only be bought with quantity 1.");
  }
  const interval = input.priceId
    ? (choice.product.prices[input.priceId]?.interval ?? null)
    : firstInterval(choice.product);
  return db.transaction(async (tx) => {
    const lockName = JSON.stringify(["payments-customer", projectId, customer.type, customer.id]);
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${lockName}, 0))`);
    if (input.idempotencyKey !== undefined) {
      const [existing] = await tx
        .select()
        .from(productPurchases)
        .where(
          and(
            eq(productPurchases.projectId, projectId),
            eq(productPurchases.idempotencyKey, input.idempotencyKey),
          ),
        );
      if (existing) return { row: existing, replayed: true };
    }
    const now = new Date();
    const held = livePurchases(await listCustomerPurchases(tx as Database, projectId, customer), now);
    if (choice.productId !== null) {
      const owned = held.filter((row) => row.productId === choice.productId);
      if (owned.length > 0 && !choice.product.stackable) {
        throw knownError("PRODUCT_ALREADY_GRANTED", {
          product_id: choice.productId,
          customer_id: customer.id,
        });
      }
    }
    const line = productIdsInLine(config, choice.lineId).filter((id) => id !== choice.productId);
    const inLine = held.filter((row) => row.productId !== null && line.includes(row.productId));
    if (interval === null && inLine.some((row) => row.kind === "one_time")) {
      throw new StatusError(400, "The customer already bought a one-time product of this product line.");
    }
    for (const replaced of inLine.filter((row) => row.kind === "subscription")) {
      await tx
        .update(productPurchases)
        .set({ endsAt: now, cancelledAt: now })
        .where(and(eq(productPurchases.projectId, projectId), eq(productPurchases.id, replaced.id)));
    }
    const [row] = await tx
      .insert(productPurchases)
      .values({
        projectId,
        id: randomUuid(),
        customerType: customer.type,
        customerId: customer.id,
        productId: choice.productId,
        product: choice.product as unknown as Record<string, unknown>,
        priceId: input.priceId,
        quantity: input.quantity,
        kind: interval === null ? "one_time" : "subscription",
        source: input.source,
        testMode: input.testMode,
        interval: interval === null ? null : [interval[0], interval[1]],
        idempotencyKey: input.idempotencyKey ?? null,
        createdAt: now,
      })
      .returning();
    return { row: row!, replayed: false };
  });
}

function firstInterval(product: InlineProduct): Interval | null {
  for (const price of Object.values(product.prices)) {
    if (price.interval && price.interval[0] > 0) return price.interval;
  }
  return null;
}

/**
 * Cancels the customer's live subscriptions to a product (or the one named): each ends with its current period.
 * A product not held, or held only through one-time purchases, is a plain 400 (they cannot be cancelled).
 */
export async function cancelSubscriptions(
  db: Database,
  projectId: string,
  customer: Customer,
  productId: string,
  subscriptionId: string | undefined,
): Promise<void> {
  const now = new Date();
  const held = livePurchases(await listCustomerPurchases(db, projectId, customer), now).filter(
    (row) => row.productId === productId && (subscriptionId === undefined || row.id === subscriptionId),
  );
  const cancelable = held.filter((row) => row.kind === "subscription" && row.endsAt === null);
  if (cancelable.length === 0) {
    throw new StatusError(
      400,
      held.length === 0
        ? "The customer has no active subscription to this product."
        : "This product was bought once, not subscribed to; there is nothing to cancel.",
    );
  }
  for (const row of cancelable) {
    const period = currentPeriod(timelineOf(row), now);
    await db
      .update(productPurchases)
      .set({ endsAt: period?.end ?? now, cancelledAt: now })
      .where(
        and(
          eq(productPurchases.projectId, projectId),
          eq(productPurchases.id, row.id),
          isNull(productPurchases.endsAt),
        ),
      );
  }
}
