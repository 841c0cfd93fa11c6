/**
 * Response shapes of the payments routes (PROTOCOL-EXTRA §2.3): a customer's products grouped as the protocol
 * lists them, with the deprecated `type` and `subscription` fields that the official SDKs still read.
 */
import type { WireCustomerProduct } from "@gatehouse/shared";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import { wireFit } from "../../http/wire-schema.ts";
import { type InlineProduct, inlineProductSchema, productToInline } from "./catalogue.ts";
import { currentPeriod } from "./grants.ts";
import { livePurchases, productIdsInLine, timelineOf } from "./purchases.ts";
import type { ProductPurchaseRow } from "./schema.ts";

const inlineProductOutput = inlineProductSchema.passthrough();

export const customerProductSchema = wireFit<WireCustomerProduct>()(
  z.object({
    id: z.string().nullable(),
    quantity: z.number(),
    product: inlineProductOutput,
    type: z.enum(["one_time", "subscription"]).optional(),
    subscription: z
      .object({
        subscription_id: z.string().nullable(),
        current_period_end: z.string().nullable(),
        cancel_at_period_end: z.boolean(),
        is_cancelable: z.boolean(),
      })
      .nullable()
      .optional(),
    switch_options: z.array(z.object({ product_id: z.string(), product: inlineProductOutput })).optional(),
  }),
);

export type CustomerProductView = z.output<typeof customerProductSchema>;

/** Only the interval prices of a product: what a plan switch can move to. */
function withIntervalPricesOnly(product: InlineProduct): InlineProduct {
  return {
    ...product,
    prices: Object.fromEntries(Object.entries(product.prices).filter(([, price]) => price.interval)),
  };
}

function switchOptions(config: RenderedConfig, productId: string): CustomerProductView["switch_options"] {
  const product = config.payments.products[productId];
  if (!product?.productLineId) return undefined;
  return productIdsInLine(config, product.productLineId)
    .filter((id) => id !== productId)
    .flatMap((id) => {
      const other = config.payments.products[id]!;
      if (other.isAddOnTo !== false || other.customerType !== product.customerType) return [];
      const inline = withIntervalPricesOnly(productToInline(other));
      return Object.keys(inline.prices).length > 0 ? [{ product_id: id, product: inline }] : [];
    });
}

/**
 * The products a customer holds now: one entry per catalogue product (quantities added up), one per inline
 * product purchase; sorted by product id (inline ones, whose id is null, by their purchase id, last).
 */
export function customerProductViews(
  config: RenderedConfig,
  rows: readonly ProductPurchaseRow[],
  now: Date,
): Array<CustomerProductView & { sortKey: string }> {
  const groups = new Map<string, ProductPurchaseRow[]>();
  for (const row of livePurchases(rows, now)) {
    const key = row.productId !== null ? `p:${row.productId}` : `i:${row.id}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const views = [...groups.entries()].map(([key, group]) => {
    const latest = group[group.length - 1]!;
    const subscription = group.find((row) => row.kind === "subscription");
    const catalogue = latest.productId !== null ? config.payments.products[latest.productId] : undefined;
    const period = subscription ? currentPeriod(timelineOf(subscription), now) : null;
    const view: CustomerProductView & { sortKey: string } = {
      sortKey: key.slice(2),
      id: latest.productId,
      quantity: group.reduce((sum, row) => sum + row.quantity, 0),
      // The catalogue's current product where it still exists; the bought snapshot otherwise.
      product: catalogue ? productToInline(catalogue) : (latest.product as InlineProduct),
      type: subscription ? "subscription" : "one_time",
      subscription: subscription
        ? {
            subscription_id: subscription.id,
            current_period_end: (subscription.endsAt ?? period?.end ?? null)?.toISOString() ?? null,
            cancel_at_period_end: subscription.endsAt !== null,
            is_cancelable: subscription.endsAt === null,
          }
        : null,
    };
    if (latest.productId !== null) {
      const options = switchOptions(config, latest.productId);
      if (options) view.switch_options = options;
    }
    return view;
  });
  return views.sort((a, b) => compareProductOrder(a, productCursor(b)));
}

/** Inline products have no product id; their cursor is their purchase id, marked (product ids cannot hold ":"). */
const INLINE_CURSOR_PREFIX = "inline:";

/** The cursor that continues after this product. */
export function productCursor(view: { id: string | null; sortKey: string }): string {
  return view.id === null ? `${INLINE_CURSOR_PREFIX}${view.sortKey}` : view.sortKey;
}

/**
 * Where a listed product stands relative to a cursor, in the listing's order: catalogue products by id, then inline
 * products by purchase id. The cursor's product need not be held any more.
 */
export function compareProductOrder(view: { id: string | null; sortKey: string }, cursor: string): number {
  const cursorInline = cursor.startsWith(INLINE_CURSOR_PREFIX);
  const cursorKey = cursorInline ? cursor.slice(INLINE_CURSOR_PREFIX.length) : cursor;
  const viewGroup = view.id === null ? 1 : 0;
  const cursorGroup = cursorInline ? 1 : 0;
  if (viewGroup !== cursorGroup) return viewGroup - cursorGroup;
  return view.sortKey < cursorKey ? -1 : view.sortKey > cursorKey ? 1 : 0;
}
