/**
 * What the payments pages share: the `payments` section of the project config read with the server's defaults
 * (PROTOCOL-EXTRA §2.1), amounts and intervals in words, and a customer's calls through the admin app's public
 * payments methods (the shapes are the SDK's).
 */
import type {
  CustomerOptions,
  CustomerProduct,
  GatehouseAdminApp,
  ListTransactionsOptions,
  TransactionType,
} from "@gatehouse/js";
import { amountsLine, type Currency } from "@gatehouse/react/ui";
import type { AsyncState } from "../../ui/hooks.ts";

export const CUSTOMER_TYPES = ["user", "team", "custom"] as const;
export type CustomerType = (typeof CUSTOMER_TYPES)[number];

export { CURRENCIES, type Currency, formatAmount } from "@gatehouse/react/ui";

export const INTERVAL_UNITS = ["day", "week", "month", "year"] as const;
export type IntervalUnit = (typeof INTERVAL_UNITS)[number];
export type Interval = [number, IntervalUnit];

export const EXPIRY_CHOICES = ["when-repeated", "when-purchase-expires", "never"] as const;
export type Expiry = (typeof EXPIRY_CHOICES)[number];

/** Ids the project chooses (products, prices, items, product lines), as the server checks them. */
export const USER_SPECIFIED_ID = /^[a-zA-Z0-9_][a-zA-Z0-9_-]*$/;
export const MAX_ID_LENGTH = 63;

export function idProblem(id: string, taken: readonly string[], what: string): string | null {
  if (!id) return `Give the ${what} an id.`;
  if (id.length > MAX_ID_LENGTH) return `At most ${MAX_ID_LENGTH} characters.`;
  if (!USER_SPECIFIED_ID.test(id)) return 'Letters, digits, "_" and "-" only, not starting with "-".';
  if (taken.includes(id)) return `A ${what} with this id exists.`;
  return null;
}

export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_ID_LENGTH);
}

// ---------------------------------------------------------------------------------------------------------------
// The catalogue in the config
// ---------------------------------------------------------------------------------------------------------------

export type Price = Partial<Record<Currency, string>> & {
  interval?: Interval;
  serverOnly?: boolean;
  freeTrial?: Interval;
};

export type IncludedItem = { quantity: number; repeat: "never" | Interval; expires: Expiry };

export type Product = {
  displayName: string;
  productLineId?: string;
  isAddOnTo?: false | Record<string, true>;
  customerType: CustomerType;
  freeTrial?: Interval;
  serverOnly: boolean;
  stackable: boolean;
  prices: "include-by-default" | Record<string, Price>;
  includedItems: Record<string, IncludedItem>;
};

export type Item = { displayName: string; customerType: CustomerType };
export type ProductLine = { displayName?: string; customerType: CustomerType };

export type PaymentsConfig = {
  testMode: boolean;
  blockNewPurchases: boolean;
  productLines: Record<string, ProductLine>;
  products: Record<string, Product>;
  items: Record<string, Item>;
};

/** The catalogue as the payments pages share it. */
export type PaymentsState = {
  state: AsyncState<PaymentsConfig>;
  /** Writes config keys (dot notation) and reads the config again; throws the server's refusal. */
  save: (override: Record<string, unknown>) => Promise<void>;
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function customerTypeOf(value: unknown): CustomerType {
  return (CUSTOMER_TYPES as readonly unknown[]).includes(value) ? (value as CustomerType) : "user";
}

/** `payments` of a rendered config; the server has filled in every default, this only guards the types. */
export function readPayments(config: Record<string, unknown>): PaymentsConfig {
  const payments = isRecord(config.payments) ? config.payments : {};
  const map = <T>(value: unknown, each: (entry: Record<string, unknown>, id: string) => T) =>
    Object.fromEntries(
      Object.entries(isRecord(value) ? value : {}).map(([id, entry]) => [
        id,
        each(isRecord(entry) ? entry : {}, id),
      ]),
    );
  return {
    testMode: payments.testMode !== false,
    blockNewPurchases: payments.blockNewPurchases === true,
    productLines: map(payments.productLines, (line) => ({
      ...(typeof line.displayName === "string" ? { displayName: line.displayName } : {}),
      customerType: customerTypeOf(line.customerType),
    })),
    items: map(payments.items, (item, id) => ({
      displayName: typeof item.displayName === "string" ? item.displayName : id,
      customerType: customerTypeOf(item.customerType),
    })),
    products: map(payments.products, (product, id) => ({
      ...(product as Partial<Product>),
      displayName: typeof product.displayName === "string" ? product.displayName : id,
      customerType: customerTypeOf(product.customerType),
      serverOnly: product.serverOnly === true,
      stackable: product.stackable === true,
      prices:
        product.prices === "include-by-default"
          ? "include-by-default"
          : ((isRecord(product.prices) ? product.prices : {}) as Record<string, Price>),
      includedItems: (isRecord(product.includedItems) ? product.includedItems : {}) as Record<
        string,
        IncludedItem
      >,
    })),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Words for amounts and intervals
// ---------------------------------------------------------------------------------------------------------------

export function intervalWords(interval: readonly [number, string] | undefined | null): string {
  if (!interval) return "one-time";
  const [count, unit] = interval;
  return count === 1 ? `every ${unit}` : `every ${count} ${unit}s`;
}

/** "$9.00 every month", "€5.00 / $5.50 one-time". */
export function priceWords(price: Record<string, unknown>): string {
  const amounts = amountsLine(price);
  return `${amounts || "no amount"} ${intervalWords(price.interval as Interval | undefined)}`;
}

export const CUSTOMER_TYPE_LABELS: Record<CustomerType, string> = {
  user: "User",
  team: "Team",
  custom: "Custom",
};

// ---------------------------------------------------------------------------------------------------------------
// A customer's payments, as the project's admin
// ---------------------------------------------------------------------------------------------------------------

/** The customer open on the customers page (its URL's `?type=…&id=…`). */
export type Customer = { type: CustomerType; id: string };

function optionsOf(customer: Customer): CustomerOptions {
  if (customer.type === "user") return { userId: customer.id };
  if (customer.type === "team") return { teamId: customer.id };
  return { customCustomerId: customer.id };
}

export const TRANSACTION_TYPES: readonly TransactionType[] = [
  "purchase",
  "subscription-cancellation",
  "subscription-renewal",
  "manual-item-quantity-change",
  "chargeback",
  "product-change",
];

export function paymentsApi(app: GatehouseAdminApp) {
  return {
    itemQuantity: async (customer: Customer, itemId: string) =>
      (await app.getItem({ ...optionsOf(customer), itemId })).quantity,
    changeItemQuantity: (
      customer: Customer,
      itemId: string,
      change: { delta: number; description?: string; allowNegative: boolean },
    ) => app.changeItemQuantity({ ...optionsOf(customer), itemId, ...change }),
    /** Every product the customer holds, all pages read. */
    async listProducts(customer: Customer): Promise<CustomerProduct[]> {
      const all: CustomerProduct[] = [];
      let cursor: string | undefined;
      do {
        const page = await app.listProducts({
          ...optionsOf(customer),
          limit: 100,
          ...(cursor ? { cursor } : {}),
        });
        all.push(...page);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return all;
    },
    grantProduct: (customer: Customer, productId: string, quantity: number) =>
      app.grantProduct({ ...optionsOf(customer), productId, quantity }),
    cancelSubscription: (customer: Customer, productId: string, subscriptionId: string | null) =>
      app.cancelCustomerSubscription({
        ...optionsOf(customer),
        productId,
        ...(subscriptionId ? { subscriptionId } : {}),
      }),
    createPurchaseUrl: (customer: Customer, productId: string, returnUrl?: string) =>
      app.createCheckoutUrl({ ...optionsOf(customer), productId, ...(returnUrl ? { returnUrl } : {}) }),
    listTransactions: (query: ListTransactionsOptions) => app.listTransactions(query),
  };
}
