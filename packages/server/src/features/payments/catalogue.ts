/**
 * The project's catalogue as the routes read it: items and products from `payments` in the rendered config
 * (config/payments.ts declares and checks it), with the protocol's errors for ids that are not there, and products
 * in the protocol's inline shape (PROTOCOL-EXTRA §2.1), which is both what servers may send instead of an id and
 * what every product output looks like.
 */
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import type { PaymentsConfig, RenderedConfig } from "../../config/index.ts";
import {
  CURRENCY_DECIMALS,
  CUSTOMER_TYPES,
  type CustomerType,
  INTERVAL_UNITS,
  isUserSpecifiedId,
} from "../../config/payments.ts";
import { storableText } from "../../fields/text.ts";
import type { IncludedItem, Interval } from "./grants.ts";

/** Whom a payments route is about: a user, a team, or any id the app uses for its own customers. */
export type Customer = { type: CustomerType; id: string };

export type CatalogueItem = { id: string; displayName: string; customerType: CustomerType };

/** The item, if it exists and is for this customer's type: ITEM_NOT_FOUND or ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH. */
export function itemForCustomer(config: RenderedConfig, itemId: string, customer: Customer): CatalogueItem {
  const items = config.payments.items;
  // Own keys only: an item id comes from a path, and "constructor" must not find Object.prototype's.
  const item = Object.hasOwn(items, itemId) ? items[itemId] : undefined;
  if (!item) throw knownError("ITEM_NOT_FOUND", { item_id: itemId });
  if (item.customerType !== customer.type) {
    throw knownError("ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH", {
      item_id: itemId,
      customer_id: customer.id,
      item_customer_type: item.customerType,
      actual_customer_type: customer.type,
    });
  }
  return { id: itemId, displayName: item.displayName, customerType: item.customerType };
}

// ---------------------------------------------------------------------------------------------------------------
// The inline product shape
// ---------------------------------------------------------------------------------------------------------------

const intervalSchema = z.tuple([z.number().int().min(0).max(100_000), z.enum(INTERVAL_UNITS)]);
const CURRENCIES = Object.keys(CURRENCY_DECIMALS) as (keyof typeof CURRENCY_DECIMALS)[];
const amountSchema = z.string().regex(/^(0|[1-9][0-9]{0,11})(\.[0-9]{1,2})?$/, {
  error: 'an amount is a string without leading zeros and at most 2 decimals, e.g. "29.99"',
});
const userSpecifiedIdKey = z.string().refine(isUserSpecifiedId, {
  error: 'ids may only contain letters, digits, "_" and "-", and are at most 63 characters',
});
const metadataField = z.record(z.string(), z.unknown()).nullable().optional();

const inlinePriceSchema = z.strictObject({
  ...(Object.fromEntries(CURRENCIES.map((currency) => [currency, amountSchema.optional()])) as Record<
    (typeof CURRENCIES)[number],
    z.ZodOptional<typeof amountSchema>
  >),
  interval: intervalSchema.optional(),
  free_trial: intervalSchema.optional(),
  server_only: z.boolean().optional(),
});

/** A product given inline by a server (`product_inline`); every output product has this shape too. */
export const inlineProductSchema = z.strictObject({
  display_name: storableText(1000).min(1),
  customer_type: z.enum(CUSTOMER_TYPES),
  free_trial: intervalSchema.optional(),
  server_only: z.boolean().default(true),
  stackable: z.boolean().default(false),
  prices: z.record(userSpecifiedIdKey, inlinePriceSchema).default({}),
  included_items: z
    .record(
      userSpecifiedIdKey,
      z.strictObject({
        quantity: z.number().int().min(0).max(1_000_000_000).default(0),
        repeat: z.union([z.literal("never"), intervalSchema]).default("never"),
        expires: z.enum(["never", "when-purchase-expires", "when-repeated"]).default("when-repeated"),
      }),
    )
    .default({}),
  client_metadata: metadataField,
  client_read_only_metadata: metadataField,
  server_metadata: metadataField,
});

export type InlineProduct = z.output<typeof inlineProductSchema>;

type ConfigProduct = PaymentsConfig["products"][string];

/** A catalogue product in the inline shape (`prices` is `{}` for the legacy include-by-default marker). */
export function productToInline(product: ConfigProduct): InlineProduct {
  const prices: InlineProduct["prices"] = {};
  if (product.prices !== "include-by-default") {
    for (const [priceId, price] of Object.entries(product.prices)) {
      const out: InlineProduct["prices"][string] = { server_only: price.serverOnly };
      for (const currency of CURRENCIES) if (price[currency] !== undefined) out[currency] = price[currency];
      if (price.interval) out.interval = [price.interval[0], price.interval[1]];
      if (price.freeTrial) out.free_trial = [price.freeTrial[0], price.freeTrial[1]];
      prices[priceId] = out;
    }
  }
  const includedItems: InlineProduct["included_items"] = {};
  for (const [itemId, included] of Object.entries(product.includedItems)) {
    includedItems[itemId] = {
      quantity: included.quantity,
      repeat: included.repeat === "never" ? "never" : [included.repeat[0], included.repeat[1]],
      expires: included.expires,
    };
  }
  return {
    display_name: product.displayName,
    customer_type: product.customerType,
    ...(product.freeTrial ? { free_trial: [product.freeTrial[0], product.freeTrial[1]] as const } : {}),
    server_only: product.serverOnly,
    stackable: product.stackable,
    prices,
    included_items: includedItems,
  } as InlineProduct;
}

/** The included items of a stored product snapshot, read defensively (snapshots are JSON from older versions too). */
export function includedItemsOf(snapshot: Record<string, unknown>): Record<string, IncludedItem> {
  const parsed = inlineProductSchema.shape.included_items.safeParse(snapshot.included_items);
  return parsed.success ? (parsed.data as Record<string, IncludedItem>) : {};
}

/** The first interval among a product's prices: a product with one is sold as a subscription. */
export function subscriptionInterval(product: InlineProduct, priceId?: string | null): Interval | null {
  if (priceId) return product.prices[priceId]?.interval ?? null;
  for (const price of Object.values(product.prices)) if (price.interval) return price.interval;
  return null;
}

export type ProductChoice = { productId: string | null; product: InlineProduct; lineId: string | null };

/**
 * The product a request names, for this customer: PRODUCT_DOES_NOT_EXIST (with `item_exists` when the id is an
 * item's, `server_only` for a server-only product asked for by a client) or PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH.
 */
export function productForCustomer(
  config: RenderedConfig,
  request: { productId?: string | undefined; inline?: InlineProduct | undefined; fromClient: boolean },
  customer: Customer,
): ProductChoice {
  let choice: ProductChoice;
  if (request.productId !== undefined) {
    const { products, items } = config.payments;
    const product = Object.hasOwn(products, request.productId) ? products[request.productId] : undefined;
    if (!product) {
      throw knownError("PRODUCT_DOES_NOT_EXIST", {
        product_id: request.productId,
        context: Object.hasOwn(items, request.productId) ? "item_exists" : null,
      });
    }
    if (request.fromClient && product.serverOnly) {
      throw knownError("PRODUCT_DOES_NOT_EXIST", { product_id: request.productId, context: "server_only" });
    }
    choice = {
      productId: request.productId,
      product: productToInline(product),
      lineId: product.productLineId ?? null,
    };
  } else {
    choice = { productId: null, product: request.inline!, lineId: null };
  }
  if (choice.product.customer_type !== customer.type) {
    throw knownError("PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH", {
      product_id: choice.productId,
      customer_id: customer.id,
      product_customer_type: choice.product.customer_type,
      actual_customer_type: customer.type,
    });
  }
  return choice;
}
