/**
 * The products customers hold (`product_purchases`, PROTOCOL-EXTRA §2.2): buying or granting one, reading what a
 * customer owns, cancelling a subscription. A customer owns a product while the quantity of its live purchases is
 * above zero. Subscriptions bought here (test mode, a server's grant) renew by themselves until cancelled; a
 * cancelled one lasts to the end of the period it was cancelled in.
 */
import { knownError } from "@gatehouse/shared";
import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
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
  /**
   * Paid at the provider already: the refusals that protect a customer from buying twice are past (the money is
   * taken), so the purchase is recorded whatever the customer holds; a replaced plan is still ended.
   */
  paid?: {
    stripeSubscriptionId?: string | null;
    stripePaymentIntentId?: string | null;
    endsAt?: Date | null;
  };
};

/** What the customer holds of the other products in the chosen product's line. */
function productsInLine(
  config: RenderedConfig,
  held: readonly ProductPurchaseRow[],
  choice: ProductChoice,
): ProductPurchaseRow[] {
  const line = productIdsInLine(config, choice.lineId).filter((id) => id !== choice.productId);
  return held.filter((row) => row.productId !== null && line.includes(row.productId));
}

export type PurchaseAttempt = Pick<NewPurchase, "customer" | "choice" | "priceId" | "quantity">;

function intervalOf(attempt: PurchaseAttempt): Interval | null {
  return attempt.priceId
    ? (attempt.choice.product.prices[attempt.priceId]?.interval ?? null)
    : firstInterval(attempt.choice.product);
}

/**
 * The refusals of a purchase, given what the customer holds now: more than one of a non-stackable product is a plain
 * 400, owning it already PRODUCT_ALREADY_GRANTED, a one-time product in a line where the customer holds a one-time
 * purchase a plain 400. Returns the customer's live subscriptions that the purchase replaces (same product line).
 */
export function checkPurchase(
  config: RenderedConfig,
  held: readonly ProductPurchaseRow[],
  attempt: PurchaseAttempt,
): ProductPurchaseRow[] {
  const { choice, customer } = attempt;
  if (!choice.product.stackable && attempt.quantity !== 1) {
    throw new StatusError(400, "This product is not stackable: it can only be bought with quantity 1.");
  }
  if (
    choice.productId !== null &&
    !choice.product.stackable &&
    held.some((row) => row.productId === choice.productId)
  ) {
    throw knownError("PRODUCT_ALREADY_GRANTED", { product_id: choice.productId, customer_id: customer.id });
  }
  const inLine = productsInLine(config, held, choice);
  if (intervalOf(attempt) === null && inLine.some((row) => row.kind === "one_time")) {
    throw new StatusError(400, "The customer already bought a one-time product of this product line.");
  }
  return inLine.filter((row) => row.kind === "subscription");
}

/** The same refusals as `recordPurchase`, before a payment starts (nothing is written). */
export async function checkPurchaseNow(
  db: Database,
  config: RenderedConfig,
  projectId: string,
  attempt: PurchaseAttempt,
): Promise<void> {
  const held = livePurchases(await listCustomerPurchases(db, projectId, attempt.customer), new Date());
  checkPurchase(config, held, attempt);
}

/**
 * Records a purchase or grant, with `checkPurchase`'s refusals made against the customer's holdings in the same step
 * (one advisory lock per customer); a live subscription in the same product line is replaced (ended now), as a plan
 * switch. A paid purchase skips the refusals: the money is taken, so it is recorded whatever the customer holds.
 */
export async function recordPurchase(
  db: Database,
  config: RenderedConfig,
  projectId: string,
  input: NewPurchase,
): Promise<{ row: ProductPurchaseRow; replayed: boolean }> {
  const { choice, customer } = input;
  const interval = intervalOf(input);
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
    const replaces = input.paid
      ? productsInLine(config, held, choice).filter((row) => row.kind === "subscription")
      : checkPurchase(config, held, input);
    const carriedOn = input.paid?.stripeSubscriptionId ?? null;
    for (const replaced of replaces) {
      // A plan switch carries the Stripe subscription on to the new row: Stripe's later news about it (renewed,
      // cancelled) is about the new product, and must not bring the replaced row back to life.
      const movesOn = carriedOn !== null && replaced.stripeSubscriptionId === carriedOn;
      await tx
        .update(productPurchases)
        .set({ endsAt: now, cancelledAt: now, ...(movesOn ? { stripeSubscriptionId: null } : {}) })
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
        stripeSubscriptionId: input.paid?.stripeSubscriptionId ?? null,
        stripePaymentIntentId: input.paid?.stripePaymentIntentId ?? null,
        endsAt: input.paid?.endsAt ?? null,
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
  /** Cancels a provider's subscription at its period end and says when that is (null: use our period). */
  cancelAtProvider: (stripeSubscriptionId: string) => Promise<Date | null>,
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
    const atProvider = row.stripeSubscriptionId ? await cancelAtProvider(row.stripeSubscriptionId) : null;
    const period = currentPeriod(timelineOf(row), now);
    await db
      .update(productPurchases)
      .set({ endsAt: atProvider ?? period?.end ?? now, cancelledAt: now })
      .where(
        and(
          eq(productPurchases.projectId, projectId),
          eq(productPurchases.id, row.id),
          isNull(productPurchases.endsAt),
        ),
      );
  }
}

/**
 * Brings a Stripe-backed subscription's end in line with Stripe's current state (read from Stripe, so events in any
 * order, or twice, leave the same result). Returns false when no purchase has that subscription yet.
 */
export async function syncSubscriptionEnd(
  db: Database,
  projectId: string,
  stripeSubscriptionId: string,
  endsAt: Date | null,
): Promise<boolean> {
  const updated = await db
    .update(productPurchases)
    .set({
      endsAt,
      ...(endsAt ? { cancelledAt: sql`coalesce(${productPurchases.cancelledAt}, now())` } : {}),
    })
    .where(
      and(
        eq(productPurchases.projectId, projectId),
        eq(productPurchases.stripeSubscriptionId, stripeSubscriptionId),
      ),
    )
    .returning({ id: productPurchases.id });
  return updated.length > 0;
}

/**
 * The purchase a Stripe subscription now pays for, from our own row: a plan switch moves the subscription to a new
 * product and clears the purchase code from its metadata, so its later invoices are matched by subscription id.
 */
export async function purchaseOfSubscription(db: Database, projectId: string, stripeSubscriptionId: string) {
  const [row] = await db
    .select({
      customerType: productPurchases.customerType,
      customerId: productPurchases.customerId,
      product: productPurchases.product,
      quantity: productPurchases.quantity,
    })
    .from(productPurchases)
    .where(
      and(
        eq(productPurchases.projectId, projectId),
        eq(productPurchases.stripeSubscriptionId, stripeSubscriptionId),
      ),
    )
    .orderBy(desc(productPurchases.createdAt))
    .limit(1);
  if (!row) return null;
  return {
    productName: (row.product as { display_name?: string }).display_name ?? "",
    customer: { type: row.customerType, id: row.customerId } as Customer,
    quantity: row.quantity,
  };
}

/** A refunded Stripe payment ends what it bought (once: a replayed refund event changes nothing). */
export async function markRefundedByPaymentIntent(
  db: Database,
  projectId: string,
  stripePaymentIntentId: string,
): Promise<number> {
  const updated = await db
    .update(productPurchases)
    .set({ refundedAt: new Date() })
    .where(
      and(
        eq(productPurchases.projectId, projectId),
        eq(productPurchases.stripePaymentIntentId, stripePaymentIntentId),
        isNull(productPurchases.refundedAt),
      ),
    )
    .returning({ id: productPurchases.id });
  return updated.length;
}
