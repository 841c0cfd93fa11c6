/** Payments: items, products, invoices, billing, purchase URLs (PROTOCOL.md §3.14, PROTOCOL-EXTRA §2.3). */

export type WireCustomerType = "user" | "team" | "custom";
export type WireIntervalUnit = "day" | "week" | "month" | "year";
export type WireInterval = [number, WireIntervalUnit];

/** A price: amounts by currency code (strings such as "29.99"), and its interval when it repeats. */
export type WirePrice = {
  [currency: string]: string | WireInterval | boolean | undefined;
  interval?: WireInterval | undefined;
  free_trial?: WireInterval | undefined;
  server_only?: boolean | undefined;
};

/** A product as the customer routes show it (catalogue products in the same inline shape). */
export type WireInlineProduct = {
  display_name: string;
  customer_type: WireCustomerType;
  free_trial?: WireInterval | undefined;
  server_only: boolean;
  stackable: boolean;
  prices: Record<string, WirePrice>;
  included_items: Record<string, unknown>;
  client_metadata?: Record<string, unknown> | null | undefined;
  client_read_only_metadata?: Record<string, unknown> | null | undefined;
  server_metadata?: Record<string, unknown> | null | undefined;
};

/** `GET /payments/items/{customer_type}/{customer_id}/{item_id}`. */
export type WireItem = { id: string; display_name: string; quantity: number };

export type WireCustomerProduct = {
  id: string | null;
  quantity: number;
  product: WireInlineProduct;
  type?: "one_time" | "subscription" | undefined;
  subscription?:
    | {
        subscription_id: string | null;
        current_period_end: string | null;
        cancel_at_period_end: boolean;
        is_cancelable: boolean;
      }
    | null
    | undefined;
  switch_options?: { product_id: string; product: WireInlineProduct }[] | undefined;
};

export type WireInvoice = {
  created_at_millis: number;
  status: "draft" | "open" | "paid" | "uncollectible" | "void" | null;
  amount_total: number;
  hosted_invoice_url: string | null;
};

export type WireBilling = {
  has_customer: boolean;
  default_payment_method: {
    id: string;
    brand: string | null;
    last4: string | null;
    exp_month: number | null;
    exp_year: number | null;
  } | null;
};

/** `POST /payments/purchases/create-purchase-url`. */
export type WirePurchaseUrl = { url: string };

/** `POST /payments/purchases/validate-code`: what a purchase code offers its end user (the purchase page). */
export type WirePurchaseOffer = {
  product: WireInlineProduct;
  stripe_account_id: string | null;
  project_id: string;
  project_display_name: string;
  project_logo_url: string | null;
  already_bought_non_stackable: boolean;
  conflicting_products: { product_id: string; display_name: string }[];
  test_mode: boolean;
  charges_enabled: boolean;
};
