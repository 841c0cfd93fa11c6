import { defineError } from "../definition.ts";
import { quoted, text } from "./format.ts";

function customerTypeMismatch(
  what: "item" | "product",
  configuredType: unknown,
  actualType: unknown,
): string {
  return configuredType == null
    ? `The ${what} has no customer type configured; check the project's payment configuration.`
    : `The ${what} is only available to ${text(configuredType)} customers, but this customer is a ${text(actualType)}.`;
}

/** Errors about items, products, customers, purchases and refunds. */
export const paymentErrors = {
  // --- Customers ---
  CUSTOMER_DOES_NOT_EXIST: defineError(
    400,
    ["customer_id"],
    (d) => `The customer ${quoted(d.customer_id)} does not exist.`,
  ),
  DEFAULT_PAYMENT_METHOD_REQUIRED: defineError(
    400,
    ["customer_type", "customer_id"],
    (d) =>
      `The ${text(d.customer_type)} customer ${quoted(d.customer_id)} needs a default payment method first.`,
  ),

  // --- Items ---
  ITEM_NOT_FOUND: defineError(404, ["item_id"], (d) => `The item ${quoted(d.item_id)} was not found.`),
  ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH: defineError(
    400,
    ["item_id", "customer_id", "item_customer_type", "actual_customer_type"],
    (d) =>
      `The ${text(d.actual_customer_type)} ${quoted(d.customer_id)} cannot be a customer of the item ` +
      `${quoted(d.item_id)}. ${customerTypeMismatch("item", d.item_customer_type, d.actual_customer_type)}`,
  ),
  ITEM_QUANTITY_INSUFFICIENT_AMOUNT: defineError(
    400,
    ["item_id", "customer_id", "quantity"],
    (d) =>
      `The customer ${quoted(d.customer_id)} does not have enough of the item ${quoted(d.item_id)} ` +
      `to use ${text(d.quantity)}.`,
  ),

  // --- Products ---
  PRODUCT_DOES_NOT_EXIST: defineError(400, ["product_id", "context"], (d) => {
    const product = `The product ${quoted(d.product_id)}`;
    if (d.context === "server_only") return `${product} is server-only and cannot be used from a client.`;
    if (d.context === "item_exists") return `${product} does not exist, but an item with this ID does.`;
    return `${product} does not exist.`;
  }),
  PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH: defineError(
    400,
    ["product_id", "customer_id", "product_customer_type", "actual_customer_type"],
    (d) =>
      `The ${text(d.actual_customer_type)} ${quoted(d.customer_id)} cannot be a customer of the ` +
      `${d.product_id == null ? "given inline product" : `product ${quoted(d.product_id)}`}. ` +
      customerTypeMismatch("product", d.product_customer_type, d.actual_customer_type),
  ),
  PRODUCT_ALREADY_GRANTED: defineError(
    400,
    ["product_id", "customer_id"],
    (d) => `The customer ${quoted(d.customer_id)} already owns the product ${quoted(d.product_id)}.`,
  ),

  // --- Purchases and refunds ---
  SUBSCRIPTION_INVOICE_NOT_FOUND: defineError(
    404,
    ["subscription_invoice_id"],
    (d) => `The subscription invoice ${text(d.subscription_invoice_id)} was not found.`,
  ),
  ONE_TIME_PURCHASE_NOT_FOUND: defineError(
    404,
    ["one_time_purchase_id"],
    (d) => `The one-time purchase ${text(d.one_time_purchase_id)} was not found.`,
  ),
  SUBSCRIPTION_ALREADY_REFUNDED: defineError(
    400,
    ["subscription_id"],
    (d) => `The subscription ${text(d.subscription_id)} has already been refunded.`,
  ),
  ONE_TIME_PURCHASE_ALREADY_REFUNDED: defineError(
    400,
    ["one_time_purchase_id"],
    (d) => `The one-time purchase ${text(d.one_time_purchase_id)} has already been refunded.`,
  ),
  TEST_MODE_PURCHASE_NON_REFUNDABLE: defineError(400, [], "Purchases made in test mode cannot be refunded."),
  NEW_PURCHASES_BLOCKED: defineError(403, [], "New purchases are currently blocked for this project."),

  // --- Stripe ---
  STRIPE_ACCOUNT_INFO_NOT_FOUND: defineError(
    404,
    [],
    "No Stripe account information was found. Make sure the Stripe onboarding has been completed.",
  ),
} as const;
