/**
 * The `payments` section of the rendered config (PROTOCOL-EXTRA §2.1): product lines, products with their prices
 * and included items, and items, each for one customer type. Checked when a config is rendered, so a bad override is
 * a plain 400 naming the key and never stored. Legacy names (`offers`, `groups`, `catalogs`, `groupId`, ...) are
 * read as their current ones.
 */
import { z } from "zod";
import { isPlainObject } from "./json.ts";
import { dropNullEntries, entry, record } from "./schema-blocks.ts";

export const CUSTOMER_TYPES = ["user", "team", "custom"] as const;
export type CustomerType = (typeof CUSTOMER_TYPES)[number];

export const INTERVAL_UNITS = ["day", "week", "month", "year"] as const;

/** The currencies a price may name, with the decimals each allows. */
export const CURRENCY_DECIMALS = { USD: 2, EUR: 2, GBP: 2, JPY: 0, INR: 2, AUD: 2, CAD: 2 } as const;
export type Currency = keyof typeof CURRENCY_DECIMALS;
const CURRENCIES = Object.keys(CURRENCY_DECIMALS) as Currency[];

/** Ids the project chooses: products, prices, items, product lines. */
export const USER_SPECIFIED_ID_PATTERN = /^[a-zA-Z0-9_][a-zA-Z0-9_-]*$/;
export const MAX_USER_SPECIFIED_ID_LENGTH = 63;

export function isUserSpecifiedId(value: string): boolean {
  return value.length <= MAX_USER_SPECIFIED_ID_LENGTH && USER_SPECIFIED_ID_PATTERN.test(value);
}

const userSpecifiedId = z.string().refine(isUserSpecifiedId, {
  error: `ids here may only contain letters, digits, "_" and "-", must not start with "-", and are at most ${MAX_USER_SPECIFIED_ID_LENGTH} characters`,
});

const customerType = z.enum(CUSTOMER_TYPES);

/** `[count, unit]`, e.g. `[1, "month"]`. */
const dayInterval = z.tuple([z.number().int().min(0), z.enum(INTERVAL_UNITS)], {
  error: 'must be [count, unit] with a unit of "day", "week", "month" or "year", e.g. [1, "month"]',
});

function moneyAmount(currency: Currency) {
  const decimals = CURRENCY_DECIMALS[currency];
  const pattern =
    decimals === 0 ? /^(0|[1-9][0-9]*)$/ : new RegExp(`^(0|[1-9][0-9]*)(\\.[0-9]{1,${decimals}})?$`);
  return z
    .string()
    .max(20)
    .regex(pattern, {
      error:
        decimals === 0
          ? `must be a whole amount as a string without leading zeros (${currency} has no decimals)`
          : `must be an amount as a string without leading zeros and with at most ${decimals} decimals, e.g. "29.99"`,
    });
}

const priceSchema = entry({
  ...(Object.fromEntries(
    CURRENCIES.map((currency) => [currency, moneyAmount(currency).optional()]),
  ) as Record<Currency, z.ZodOptional<ReturnType<typeof moneyAmount>>>),
  interval: dayInterval.optional(),
  serverOnly: z.boolean().default(false),
  freeTrial: dayInterval.optional(),
}).superRefine((price, ctx) => {
  if (!CURRENCIES.some((currency) => price[currency] !== undefined)) {
    ctx.addIssue({
      code: "custom",
      path: [],
      message: `a price needs an amount in at least one currency (${CURRENCIES.join(", ")})`,
    });
  }
});

const INCLUDE_BY_DEFAULT = "include-by-default";

/** `"include-by-default"` (the legacy free-product marker) or a map of prices. */
const pricesSchema = z
  .union([z.literal(INCLUDE_BY_DEFAULT), record(userSpecifiedId, priceSchema)])
  .default({});

const includedItemSchema = entry({
  quantity: z.number().int().min(0).default(0),
  repeat: z.union([z.literal("never"), dayInterval]).default("never"),
  expires: z.enum(["never", "when-purchase-expires", "when-repeated"]).default("when-repeated"),
});

const productSchema = entry({
  displayName: z.string().max(1000),
  productLineId: userSpecifiedId.optional(),
  isAddOnTo: z.union([z.literal(false), z.record(userSpecifiedId, z.literal(true))]).default(false),
  customerType: customerType.default("user"),
  freeTrial: dayInterval.optional(),
  serverOnly: z.boolean().default(false),
  stackable: z.boolean().default(false),
  prices: pricesSchema,
  includedItems: record(userSpecifiedId, includedItemSchema),
});

const itemSchema = entry({
  displayName: z.string().max(1000),
  customerType: customerType.default("user"),
});

const productLineSchema = entry({
  displayName: z.string().max(1000).optional(),
  customerType,
});

type PaymentsShape = {
  productLines: Record<string, { customerType: CustomerType }>;
  products: Record<
    string,
    {
      productLineId?: string | undefined;
      isAddOnTo: false | Record<string, true>;
      customerType: CustomerType;
      includedItems: Record<string, unknown>;
    }
  >;
  items: Record<string, { customerType: CustomerType }>;
};

/**
 * What the field schemas cannot say: product lines, add-on bases and included items must exist, and belong to the
 * product's customer type (a team product cannot grant a user item).
 */
function crossCheck(payments: PaymentsShape, ctx: z.RefinementCtx): void {
  const issue = (path: string[], message: string) => ctx.addIssue({ code: "custom", path, message });
  for (const [productId, product] of Object.entries(payments.products)) {
    const at = (...rest: string[]) => ["products", productId, ...rest];
    if (product.productLineId !== undefined) {
      const line = payments.productLines[product.productLineId];
      if (!line) {
        issue(
          at("productLineId"),
          `product line "${product.productLineId}" is not defined under payments.productLines`,
        );
      } else if (line.customerType !== product.customerType) {
        issue(
          at("productLineId"),
          `product line "${product.productLineId}" is for ${line.customerType} customers, but this product is for ${product.customerType} customers`,
        );
      }
    }
    if (product.isAddOnTo !== false) {
      for (const baseId of Object.keys(product.isAddOnTo)) {
        if (!Object.hasOwn(payments.products, baseId)) {
          issue(at("isAddOnTo", baseId), `product "${baseId}" is not defined under payments.products`);
        }
      }
    }
    for (const itemId of Object.keys(product.includedItems)) {
      const item = payments.items[itemId];
      if (!item) {
        issue(at("includedItems", itemId), `item "${itemId}" is not defined under payments.items`);
      } else if (item.customerType !== product.customerType) {
        issue(
          at("includedItems", itemId),
          `item "${itemId}" is for ${item.customerType} customers, but this product is for ${product.customerType} customers`,
        );
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading legacy names, and defaults that depend on the entry's id
// ---------------------------------------------------------------------------------------------------------------

function objectOrEmpty(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/** Older names of the same map, oldest first; the current name wins where both define an id. */
function mergedMap(
  payments: Record<string, unknown>,
  names: readonly string[],
): Record<string, unknown> | undefined {
  const present = names.filter((name) => payments[name] !== undefined && payments[name] !== null);
  if (present.length === 0) return undefined;
  // A non-object under the current name is left for the schema to report.
  const current = payments[names[names.length - 1]!];
  if (current !== undefined && current !== null && !isPlainObject(current)) return current as never;
  return Object.assign({}, ...present.map((name) => objectOrEmpty(payments[name])));
}

function migrateProduct(value: unknown, id: string): unknown {
  if (!isPlainObject(value)) return value;
  const { groupId, catalogId, ...rest } = value;
  const product: Record<string, unknown> = { ...rest };
  if (product.productLineId === undefined || product.productLineId === null) {
    const legacyLine = catalogId ?? groupId;
    if (legacyLine !== undefined && legacyLine !== null) product.productLineId = legacyLine;
  }
  if (product.displayName === undefined || product.displayName === null) product.displayName = id;
  return product;
}

function migrateItem(value: unknown, id: string): unknown {
  if (!isPlainObject(value)) return value;
  const { default: _removed, ...item } = value;
  if (item.displayName === undefined || item.displayName === null) item.displayName = id;
  return item;
}

function mapEntries(map: unknown, each: (value: unknown, id: string) => unknown): unknown {
  if (!isPlainObject(map)) return map;
  return Object.fromEntries(
    Object.entries(map).map(([id, value]) => [id, value === null ? null : each(value, id)]),
  );
}

/** The merged `payments` override as the current schema names it (PROTOCOL-EXTRA §2.1, "Legacy names"). */
function migrateLegacyPayments(value: unknown): unknown {
  const payments = dropNullEntries(value);
  if (!isPlainObject(payments)) return payments;
  const {
    offers: _o,
    groups: _g,
    catalogs: _c,
    stripeAccountId: _s,
    stripeAccountSetupComplete: _d,
    ...rest
  } = payments;
  const out: Record<string, unknown> = { ...rest };
  const products = mergedMap(payments, ["offers", "products"]);
  if (products !== undefined) out.products = mapEntries(products, migrateProduct);
  if (out.items !== undefined) out.items = mapEntries(out.items, migrateItem);
  const legacyLines = mergedMap(payments, ["groups", "catalogs"]);
  if (isPlainObject(legacyLines)) {
    // Groups and catalogs had no customer type: a line's is its products'.
    const inferred = mapEntries(legacyLines, (line, lineId) => {
      if (!isPlainObject(line) || (line.customerType !== undefined && line.customerType !== null))
        return line;
      const member = Object.values(objectOrEmpty(out.products)).find(
        (product) => isPlainObject(product) && product.productLineId === lineId,
      ) as Record<string, unknown> | undefined;
      return { ...line, customerType: member?.customerType ?? "user" };
    }) as Record<string, unknown>;
    const current = dropNullEntries(out.productLines);
    out.productLines =
      current === undefined ? inferred : isPlainObject(current) ? { ...inferred, ...current } : current;
  }
  return out;
}

export const paymentsConfigSchema = z
  .preprocess(
    migrateLegacyPayments,
    z
      .strictObject({
        blockNewPurchases: z.boolean().default(false),
        // Purchases are simulated until a project turns this off (environment level in the reference).
        testMode: z.boolean().default(true),
        autoPay: entry({ interval: dayInterval }).optional(),
        productLines: record(userSpecifiedId, productLineSchema),
        products: record(userSpecifiedId, productSchema),
        items: record(userSpecifiedId, itemSchema),
      })
      .superRefine(crossCheck),
  )
  .prefault({});
