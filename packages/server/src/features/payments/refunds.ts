/**
 * `POST /internal/payments/transactions/refund` (PROTOCOL-EXTRA §2.5): the owner gives money back for a purchase
 * paid through Stripe, and may take the product back with it. The transaction list shows a purchase as one
 * `product_grant` entry (index 0), so that is the one entry a refund may name. The refund is recorded on the
 * purchase row (one per purchase) and listed as its own transaction, which the purchase's `adjusted_by` names.
 *
 * One difference from the reference: the quantity taken back is all of the purchase's or none of it. Taking back
 * part would change how many of its included items were granted in periods already past.
 */
import { knownError } from "@gatehouse/shared";
import { and, eq, isNull } from "drizzle-orm";
import type Stripe from "stripe";
import { z } from "zod";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import type { ServerEnv } from "../../env.ts";
import { isUuid } from "../../fields/ids.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { type ProductPurchaseRow, productPurchases } from "./schema.ts";
import {
  cancelStripeSubscriptionAtPeriodEnd,
  findStripeAccountId,
  stripeClient,
  usdToCents,
} from "./stripe.ts";

type RefundDeps = { db: Database; env: ServerEnv };
type RefundEntry = { entry_index: number; quantity: number; amount_usd: string };
export type RefundRequest = {
  type: "subscription" | "one-time-purchase";
  id: string;
  refund_entries: RefundEntry[];
};

const NOT_PAID = "This purchase was not paid through Stripe, so there is no payment to refund.";
const schemaProblem = (message: string) => knownError("SCHEMA_ERROR", { message });

async function purchaseToRefund(db: Database, projectId: string, request: RefundRequest) {
  const kind = request.type === "subscription" ? "subscription" : "one_time";
  const [row] = isUuid(request.id)
    ? await db
        .select()
        .from(productPurchases)
        .where(and(eq(productPurchases.projectId, projectId), eq(productPurchases.id, request.id)))
    : [];
  if (!row || row.kind !== kind) {
    throw request.type === "subscription"
      ? knownError("SUBSCRIPTION_INVOICE_NOT_FOUND", { subscription_invoice_id: request.id })
      : knownError("ONE_TIME_PURCHASE_NOT_FOUND", { one_time_purchase_id: request.id });
  }
  if (row.testMode) throw knownError("TEST_MODE_PURCHASE_NON_REFUNDABLE");
  if (!row.stripePaymentIntentId && !row.stripeSubscriptionId) throw new StatusError(400, NOT_PAID);
  if (row.refundIssuedAt || row.refundedAt) {
    throw request.type === "subscription"
      ? knownError("SUBSCRIPTION_ALREADY_REFUNDED", { subscription_id: row.id })
      : knownError("ONE_TIME_PURCHASE_ALREADY_REFUNDED", { one_time_purchase_id: row.id });
  }
  return row;
}

/** The refund's quantity and cents, after the protocol's checks of its entries (SCHEMA_ERROR otherwise). */
function refundAmounts(row: ProductPurchaseRow, entries: readonly RefundEntry[]) {
  const seen = new Set<number>();
  for (const entry of entries) {
    if (entry.entry_index !== 0) {
      throw schemaProblem(
        `Refund entry ${entry.entry_index} is not a product_grant entry of this transaction.`,
      );
    }
    if (seen.has(entry.entry_index)) throw schemaProblem(`Refund entry ${entry.entry_index} is named twice.`);
    seen.add(entry.entry_index);
    if (entry.quantity > row.quantity) {
      throw schemaProblem(
        `Refund entry ${entry.entry_index} takes back more than the ${row.quantity} granted.`,
      );
    }
  }
  const quantity = entries.reduce((sum, entry) => sum + entry.quantity, 0);
  const cents = entries.reduce((sum, entry) => sum + usdToCents(entry.amount_usd), 0);
  const price = row.priceId
    ? (row.product.prices as Record<string, { USD?: string }>)[row.priceId]
    : undefined;
  if (!price?.USD) throw new StatusError(400, "Only purchases with a USD price can be refunded.");
  const charged = usdToCents(price.USD) * row.quantity;
  if (cents > charged) {
    throw schemaProblem(`The refund (${cents / 100} USD) is more than was charged (${charged / 100} USD).`);
  }
  if (quantity !== 0 && quantity !== row.quantity) {
    throw new StatusError(400, "A refund takes back all of the purchase's quantity or none of it.");
  }
  if (cents === 0 && quantity === 0) throw schemaProblem("The refund gives nothing back.");
  return { quantity, cents };
}

/** The Stripe payment a refund goes back to: a one-time purchase's own, or a subscription's first invoice's. */
async function paymentToRefund(stripe: Stripe, accountId: string, row: ProductPurchaseRow): Promise<string> {
  if (row.stripePaymentIntentId) return row.stripePaymentIntentId;
  if (row.stripeSubscriptionId) {
    const invoices = await stripe.invoices.list(
      { subscription: row.stripeSubscriptionId, limit: 100 },
      { stripeAccount: accountId },
    );
    const first = invoices.data.filter((invoice) => invoice.status === "paid").at(-1) as
      | (Stripe.Invoice & { payment_intent?: string | { id: string } | null })
      | undefined;
    const legacy = first?.payment_intent;
    const paid = first?.payments?.data?.[0]?.payment?.payment_intent;
    const id =
      typeof legacy === "string" ? legacy : (legacy?.id ?? (typeof paid === "string" ? paid : paid?.id));
    if (id) return id;
  }
  throw new StatusError(400, NOT_PAID);
}

export async function refundPurchase(
  deps: RefundDeps,
  projectId: string,
  request: RefundRequest,
): Promise<void> {
  const row = await purchaseToRefund(deps.db, projectId, request);
  const { quantity, cents } = refundAmounts(row, request.refund_entries);
  const accountId = await findStripeAccountId(deps.db, projectId);
  if (!accountId)
    throw new StatusError(400, "This purchase was paid through Stripe, which is no longer connected.");
  const stripe = await stripeClient(deps.env);
  const paymentIntent = await paymentToRefund(stripe, accountId, row);
  // Claimed first, so two refunds at once cannot both reach Stripe.
  const issuedAt = new Date();
  const claimed = await deps.db
    .update(productPurchases)
    .set({
      refundId: randomUuid(),
      refundIssuedAt: issuedAt,
      refundAmountUsd: (cents / 100).toFixed(2),
      refundQuantity: quantity,
      ...(quantity > 0 ? { refundedAt: issuedAt } : {}),
    })
    .where(
      and(
        eq(productPurchases.projectId, projectId),
        eq(productPurchases.id, row.id),
        isNull(productPurchases.refundIssuedAt),
      ),
    )
    .returning({ id: productPurchases.id });
  if (claimed.length === 0) {
    throw request.type === "subscription"
      ? knownError("SUBSCRIPTION_ALREADY_REFUNDED", { subscription_id: row.id })
      : knownError("ONE_TIME_PURCHASE_ALREADY_REFUNDED", { one_time_purchase_id: row.id });
  }
  try {
    const refund =
      cents > 0
        ? await stripe.refunds.create(
            { payment_intent: paymentIntent, amount: cents },
            { stripeAccount: accountId },
          )
        : null;
    if (refund) {
      await deps.db
        .update(productPurchases)
        .set({ stripeRefundId: refund.id })
        .where(and(eq(productPurchases.projectId, projectId), eq(productPurchases.id, row.id)));
    }
  } catch (error) {
    // Stripe refused: nothing was given back, so nothing is recorded.
    await deps.db
      .update(productPurchases)
      .set({
        refundId: null,
        refundIssuedAt: null,
        refundAmountUsd: null,
        refundQuantity: null,
        refundedAt: null,
      })
      .where(and(eq(productPurchases.projectId, projectId), eq(productPurchases.id, row.id)));
    throw error;
  }
  // A subscription whose product was taken back stops renewing at Stripe too.
  if (quantity > 0 && row.stripeSubscriptionId && row.endsAt === null) {
    await cancelStripeSubscriptionAtPeriodEnd(deps, projectId, row.stripeSubscriptionId);
  }
}

const moneyAmount = z.string().regex(/^(0|[1-9][0-9]{0,11})(\.[0-9]{1,2})?$/, {
  error: 'an amount in dollars as a string, e.g. "29.99"',
});

const admin = routeGroup({ tags: ["Payments"], access: ["admin"] });

export const refundRoutes = [
  admin.post("/internal/payments/transactions/refund", {
    summary: "Refund a purchase paid through Stripe, optionally taking the product back",
    request: {
      body: z.strictObject({
        type: z.enum(["subscription", "one-time-purchase"]),
        id: z.string().min(1).max(100),
        refund_entries: z
          .array(
            z.strictObject({
              entry_index: z.number().int().min(0),
              quantity: z.number().int().min(0),
              amount_usd: moneyAmount,
            }),
          )
          .min(1)
          .max(100),
      }),
    },
    response: { body: z.object({ success: z.literal(true) }) },
    handler: async ({ deps, auth, body }) => {
      await refundPurchase(deps, auth.project.id, body);
      return { body: { success: true as const } };
    },
  }),
];
