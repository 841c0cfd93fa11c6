/**
 * Payments as a customer sees them (PROTOCOL-EXTRA §2.2-2.3, §2.7): item quantities, the products a customer holds,
 * purchase URLs, billing and invoices, with the reference SDK's names and shapes. The current user, server users
 * and teams carry these methods for themselves; the apps take `{userId}`, `{teamId}` or (servers) `{customCustomerId}`.
 * A server's items can also be changed, and a server can grant products without payment.
 */
import type {
  WireBilling,
  WireCustomerProduct,
  WireInvoice,
  WireItem,
  WirePaginatedList,
  WirePurchaseUrl,
} from "@gatehouse/shared";
import { isKnownError } from "@gatehouse/shared";
import { call, defined, type Scope, seg, withQuery } from "./scope.ts";

export type CustomerType = "user" | "team" | "custom";

/** Whom a payments call is about. */
export type CustomerRef = { type: CustomerType; id: string };

/** A customer as the apps' methods name it. Clients may only name themselves or teams where they are team_admin. */
export type CustomerOptions = { userId: string } | { teamId: string } | { customCustomerId: string };

type Interval = [number, "day" | "week" | "month" | "year"];
type Currency = "USD" | "EUR" | "GBP" | "JPY" | "INR" | "AUD" | "CAD";

/** A price of an inline product: amounts as decimal strings (`"29.99"`); with `interval` it is a subscription. */
export type InlineProductPrice = Partial<Record<Currency, string>> & {
  interval?: Interval;
  free_trial?: Interval;
  server_only?: boolean;
};

/**
 * A product given inline instead of a catalogue id (servers only), in the wire's snake_case as the reference types
 * it; every product the server returns has this shape too.
 */
export type InlineProduct = {
  display_name: string;
  customer_type: CustomerType;
  free_trial?: Interval;
  server_only?: boolean;
  stackable?: boolean;
  prices?: Record<string, InlineProductPrice>;
  included_items?: Record<
    string,
    {
      quantity?: number;
      repeat?: "never" | Interval;
      expires?: "never" | "when-purchase-expires" | "when-repeated";
    }
  >;
  client_metadata?: Record<string, unknown> | null;
  client_read_only_metadata?: Record<string, unknown> | null;
  server_metadata?: Record<string, unknown> | null;
};

/** A customer's quantity of an item (credits, seats, ...). */
export type Item = {
  displayName: string;
  /** The net sum of grants and changes; may be negative. */
  quantity: number;
  /** `Math.max(0, quantity)`, for display. */
  nonNegativeQuantity: number;
};

/** An item as a server sees it, with the calls that change its quantity. */
export type ServerItem = Item & {
  increaseQuantity(amount: number): Promise<void>;
  /** May take the quantity below zero; `tryDecreaseQuantity` does not. */
  decreaseQuantity(amount: number): Promise<void>;
  /** Decreases only if the quantity stays at 0 or more (atomically); false, changing nothing, otherwise. */
  tryDecreaseQuantity(amount: number): Promise<boolean>;
};

export type CustomerProduct = {
  /** Null for a product given inline. */
  id: string | null;
  quantity: number;
  displayName: string;
  customerType: CustomerType;
  isServerOnly: boolean;
  stackable: boolean;
  type: "one_time" | "subscription";
  subscription: {
    subscriptionId: string | null;
    currentPeriodEnd: Date | null;
    cancelAtPeriodEnd: boolean;
    isCancelable: boolean;
  } | null;
  /** The other plans of the product's line it could move to. */
  switchOptions?: { productId: string; displayName: string; prices: Record<string, InlineProductPrice> }[];
};

export type CustomerInvoice = {
  createdAt: Date;
  status: WireInvoice["status"];
  /** In the currency's minor units (cents). */
  amountTotal: number;
  hostedInvoiceUrl: string | null;
};

export type CustomerBilling = {
  hasCustomer: boolean;
  /** The card as the wire has it (snake_case members, as the reference SDK returns them). */
  defaultPaymentMethod: WireBilling["default_payment_method"];
};

/** A page, with the cursor of the next one (null on the last). */
export type CustomerProductsList = CustomerProduct[] & { nextCursor: string | null };
export type CustomerInvoicesList = CustomerInvoice[] & { nextCursor: string | null };
export type CustomerListOptions = { cursor?: string; limit?: number };

/** What a product to buy or grant is: a catalogue id, or (servers) the product itself. */
export type ProductChoice =
  | { productId: string; product?: undefined }
  | { product: InlineProduct; productId?: undefined };

/** Payments of a user or team as a client sees them. */
export type Customer = {
  /** The user's or team's id. */
  readonly id: string;
  /** ITEM_NOT_FOUND for an item the catalogue lacks, ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH for another type's. */
  getItem(itemId: string): Promise<Item>;
  /** The products held, by product id; a client does not see server-only ones. */
  listProducts(options?: CustomerListOptions): Promise<CustomerProductsList>;
  listInvoices(options?: CustomerListOptions): Promise<CustomerInvoicesList>;
  getBilling(): Promise<CustomerBilling>;
  /** The purchase page's URL for a product (PRODUCT_ALREADY_GRANTED if held and not stackable). */
  createCheckoutUrl(options: { productId: string; returnUrl?: string }): Promise<string>;
};

/** Payments of a customer as a server sees them. */
export type ServerCustomer = Omit<Customer, "getItem" | "createCheckoutUrl"> & {
  getItem(itemId: string): Promise<ServerItem>;
  createCheckoutUrl(options: ProductChoice & { returnUrl?: string }): Promise<string>;
  /** Gives the product without payment (with its included items). */
  grantProduct(options: ProductChoice & { quantity?: number }): Promise<void>;
};

/**
 * `{userId}`, `{teamId}` or `{customCustomerId}` as the customer it names. Naming several is refused, as the
 * reference's SDK refuses it, rather than quietly acting on whichever is looked at first.
 */
export function customerOf(options: CustomerOptions): CustomerRef {
  const named = (["userId", "teamId", "customCustomerId"] as const).filter(
    (key) => (options as Partial<Record<typeof key, unknown>>)[key] !== undefined,
  );
  if (named.length > 1) {
    throw new TypeError(`Name one customer: userId, teamId or customCustomerId, not ${named.join(" and ")}.`);
  }
  if ("userId" in options) return { type: "user", id: options.userId };
  if ("teamId" in options) return { type: "team", id: options.teamId };
  if ("customCustomerId" in options) return { type: "custom", id: options.customCustomerId };
  throw new TypeError("Name the customer with userId, teamId or customCustomerId.");
}

const pathOf = (customer: CustomerRef) => `${seg(customer.type)}/${seg(customer.id)}`;

const product = (choice: ProductChoice) =>
  choice.productId !== undefined ? { product_id: choice.productId } : { product_inline: choice.product };

function paginated<T>(
  items: T[],
  json: { pagination?: { next_cursor: string | null } },
): T[] & { nextCursor: string | null } {
  return Object.assign(items, { nextCursor: json.pagination?.next_cursor ?? null });
}

function customerProductFromWire(json: WireCustomerProduct): CustomerProduct {
  const subscription = json.subscription ?? null;
  return {
    id: json.id ?? null,
    quantity: json.quantity,
    displayName: json.product.display_name,
    customerType: json.product.customer_type,
    isServerOnly: json.product.server_only === true,
    stackable: json.product.stackable === true,
    type: json.type ?? (subscription ? "subscription" : "one_time"),
    subscription: subscription && {
      subscriptionId: subscription.subscription_id ?? null,
      currentPeriodEnd: subscription.current_period_end ? new Date(subscription.current_period_end) : null,
      cancelAtPeriodEnd: subscription.cancel_at_period_end === true,
      isCancelable: subscription.is_cancelable === true,
    },
    ...(json.switch_options
      ? {
          switchOptions: json.switch_options.map((option) => ({
            productId: option.product_id,
            displayName: option.product.display_name,
            prices: option.product.prices ?? {},
          })),
        }
      : {}),
  };
}

/** The methods both sides have; items come back as ServerItems when the scope is a server's. */
function sharedMethods(scope: Scope, customer: CustomerRef): Omit<ServerCustomer, "grantProduct"> {
  const path = pathOf(customer);
  const changed = () => scope.ctx.invalidateUserData();

  const changeQuantity = async (itemId: string, delta: number, allowNegative: boolean) => {
    await call(
      scope,
      withQuery(`/payments/items/${path}/${seg(itemId)}/update-quantity`, { allow_negative: allowNegative }),
      { method: "POST", body: { delta } },
    );
    changed();
  };

  return {
    id: customer.id,
    async getItem(itemId) {
      const json = await call<WireItem>(scope, `/payments/items/${path}/${seg(itemId)}`);
      const item: Item = {
        displayName: json.display_name,
        quantity: json.quantity,
        nonNegativeQuantity: Math.max(0, json.quantity),
      };
      if (scope.accessType === "client") return item as ServerItem;
      return {
        ...item,
        increaseQuantity: (amount) => changeQuantity(itemId, amount, false),
        decreaseQuantity: (amount) => changeQuantity(itemId, -amount, true),
        async tryDecreaseQuantity(amount) {
          try {
            await changeQuantity(itemId, -amount, false);
            return true;
          } catch (error) {
            if (isKnownError(error, "ITEM_QUANTITY_INSUFFICIENT_AMOUNT")) return false;
            throw error;
          }
        },
      };
    },
    async listProducts(options = {}) {
      const page = { cursor: options.cursor, limit: options.limit };
      const json = await call<WirePaginatedList<WireCustomerProduct>>(
        scope,
        withQuery(`/payments/products/${path}`, page),
      );
      return paginated(json.items.map(customerProductFromWire), json);
    },
    async listInvoices(options = {}) {
      const page = { cursor: options.cursor, limit: options.limit };
      const json = await call<WirePaginatedList<WireInvoice>>(
        scope,
        withQuery(`/payments/invoices/${path}`, page),
      );
      const invoices = json.items.map((invoice) => ({
        createdAt: new Date(invoice.created_at_millis),
        status: invoice.status ?? null,
        amountTotal: invoice.amount_total,
        hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
      }));
      return paginated(invoices, json);
    },
    async getBilling() {
      const json = await call<WireBilling>(scope, `/payments/billing/${path}`);
      const method = json.default_payment_method ?? null;
      return {
        hasCustomer: json.has_customer === true,
        defaultPaymentMethod: method && {
          id: method.id,
          brand: method.brand ?? null,
          last4: method.last4 ?? null,
          exp_month: method.exp_month ?? null,
          exp_year: method.exp_year ?? null,
        },
      };
    },
    async createCheckoutUrl(options) {
      const json = await call<WirePurchaseUrl>(scope, "/payments/purchases/create-purchase-url", {
        method: "POST",
        body: defined({
          customer_type: customer.type,
          customer_id: customer.id,
          ...product(options),
          return_url: options.returnUrl,
        }),
      });
      return json.url;
    },
  };
}

/** A user's or team's payments, acting as a client. */
export function customerMethods(scope: Scope, customer: CustomerRef): Customer {
  return sharedMethods(scope, customer);
}

/** Any customer's payments, acting as a server. */
export function serverCustomerMethods(scope: Scope, customer: CustomerRef): ServerCustomer {
  return {
    ...sharedMethods(scope, customer),
    async grantProduct(options) {
      await call(scope, `/payments/products/${pathOf(customer)}`, {
        method: "POST",
        body: defined({ ...product(options), quantity: options.quantity }),
      });
      scope.ctx.invalidateUserData();
    },
  };
}

/** Ends a subscription to a product at the end of its period: the customer's active ones, or the one given. */
export async function cancelSubscription(
  scope: Scope,
  customer: CustomerRef,
  options: { productId: string; subscriptionId?: string },
): Promise<void> {
  await call(
    scope,
    withQuery(`/payments/products/${pathOf(customer)}/${seg(options.productId)}`, {
      subscription_id: options.subscriptionId,
    }),
    { method: "DELETE" },
  );
  scope.ctx.invalidateUserData();
}
