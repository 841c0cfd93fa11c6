/**
 * `POST /payments/products/{ct}/{cid}/switch` (PROTOCOL-EXTRA §2.3): a customer moves from one subscription of a
 * product line to another product of that line. A Stripe subscription is changed in place (Stripe prorates); a
 * subscription Stripe does not know (a server's grant) is replaced by a new Stripe one charged to the customer's
 * default card. In test mode a subscription Stripe does not know switches without Stripe, as test-mode purchases
 * do. The local rows follow: the old purchase ends now and the new one carries the Stripe subscription on.
 */
import { knownError } from "@gatehouse/shared";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import type { ServerEnv } from "../../env.ts";
import { StatusError } from "../../http/status-error.ts";
import { type Customer, type InlineProduct, type ProductChoice, productForCustomer } from "./catalogue.ts";
import { requireOpenForPurchases } from "./purchase-codes.ts";
import { checkPurchaseNow, listCustomerPurchases, livePurchases, recordPurchase } from "./purchases.ts";
import type { ProductPurchaseRow } from "./schema.ts";
import { findStripeAccountId, findStripeCustomerId, stripeClient, usdToCents } from "./stripe.ts";
import { defaultCardId } from "./stripe-cards.ts";

type SwitchDeps = { db: Database; env: ServerEnv };

export type SwitchRequest = {
  fromProductId: string;
  toProductId: string;
  priceId: string | undefined;
  quantity: number | undefined;
};

type Price = InlineProduct["prices"][string];

/** The price to switch to: the one named, else the first with an interval and a USD amount (a plain 400 if none). */
function switchPrice(
  choice: ProductChoice,
  priceId: string | undefined,
  fromClient: boolean,
): [string, Price] {
  const prices = Object.entries(choice.product.prices).filter(
    ([, price]) => !(fromClient && price.server_only),
  );
  const found = priceId === undefined ? undefined : prices.find(([id]) => id === priceId);
  if (priceId !== undefined && !found) throw new StatusError(400, `The product has no price "${priceId}".`);
  const recurring = (entry: [string, Price]) => entry[1].interval !== undefined && entry[1].USD !== undefined;
  const chosen = found ?? prices.find(recurring);
  if (!chosen || !recurring(chosen)) {
    throw new StatusError(400, "Switching needs a price with an interval and a USD amount.");
  }
  return chosen;
}

/** The catalogue's refusals of a switch, in the order the reference checks them. */
function checkSwitch(
  config: RenderedConfig,
  customer: Customer,
  request: SwitchRequest,
  fromClient: boolean,
): { to: ProductChoice; priceId: string; price: Price } {
  requireOpenForPurchases(config);
  if (request.fromProductId === request.toProductId) {
    throw new StatusError(400, "The customer already has this product; choose another product to switch to.");
  }
  const { products } = config.payments;
  const from = Object.hasOwn(products, request.fromProductId) ? products[request.fromProductId] : undefined;
  if (!from) throw knownError("PRODUCT_DOES_NOT_EXIST", { product_id: request.fromProductId, context: null });
  const to = productForCustomer(config, { productId: request.toProductId, fromClient }, customer);
  const target = products[request.toProductId]!;
  if (!from.productLineId || from.productLineId !== target.productLineId) {
    throw new StatusError(400, "Both products must be in the same product line.");
  }
  if (target.isAddOnTo !== false) throw new StatusError(400, "An add-on cannot be switched to.");
  if (target.prices === "include-by-default") {
    throw new StatusError(400, "A product included by default cannot be switched to.");
  }
  const [priceId, price] = switchPrice(to, request.priceId, fromClient);
  return { to, priceId, price };
}

/** The customer's live subscription to `productId`, or a plain 400. */
function heldSubscription(rows: readonly ProductPurchaseRow[], productId: string): ProductPurchaseRow {
  const held = livePurchases(rows, new Date()).find(
    (row) => row.productId === productId && row.kind === "subscription" && row.endsAt === null,
  );
  if (!held) throw new StatusError(400, "The customer has no active subscription to this product.");
  return held;
}

export async function switchSubscription(
  deps: SwitchDeps,
  scope: { projectId: string; config: RenderedConfig; fromClient: boolean },
  customer: Customer,
  request: SwitchRequest,
): Promise<void> {
  const { projectId, config } = scope;
  const { to, priceId, price } = checkSwitch(config, customer, request, scope.fromClient);
  const quantity = request.quantity ?? 1;
  const from = heldSubscription(
    await listCustomerPurchases(deps.db, projectId, customer),
    request.fromProductId,
  );
  // PRODUCT_ALREADY_GRANTED, a quantity above 1 of a non-stackable product: before anything is charged.
  await checkPurchaseNow(deps.db, config, projectId, { customer, choice: to, priceId, quantity });

  if (!from.stripeSubscriptionId && config.payments.testMode) {
    await recordPurchase(deps.db, config, projectId, {
      customer,
      choice: to,
      priceId,
      quantity,
      source: "test_mode",
      testMode: true,
    });
    return;
  }

  const accountId = await findStripeAccountId(deps.db, projectId);
  const stripeCustomerId = accountId ? await findStripeCustomerId(deps.db, projectId, customer) : null;
  const card = accountId ? await defaultCardId(deps, accountId, stripeCustomerId) : null;
  if (!accountId || !stripeCustomerId || !card) {
    throw knownError("DEFAULT_PAYMENT_METHOD_REQUIRED", {
      customer_type: customer.type,
      customer_id: customer.id,
    });
  }
  const stripe = await stripeClient(deps.env);
  const options = { stripeAccount: accountId };
  const product = await stripe.products.create({ name: to.product.display_name }, options);
  const [count, unit] = price.interval!;
  const priceData = {
    currency: "usd",
    unit_amount: usdToCents(price.USD!),
    recurring: { interval: unit, interval_count: count },
    product: product.id,
  };
  // The purchase code of the first checkout no longer describes the subscription; its invoices find the new purchase
  // row by subscription id instead (stripe-webhook.ts).
  const metadata = {
    gatehouse_project_id: projectId,
    purchase_code_id: "",
    price_id: priceId,
    quantity: `${quantity}`,
  };
  let stripeSubscriptionId: string;
  if (from.stripeSubscriptionId) {
    const current = await stripe.subscriptions.retrieve(from.stripeSubscriptionId, {}, options);
    const itemId = current.items.data[0]?.id;
    await stripe.subscriptions.update(
      from.stripeSubscriptionId,
      {
        items: [{ ...(itemId ? { id: itemId } : {}), price_data: priceData, quantity }],
        proration_behavior: "create_prorations",
        metadata,
      },
      options,
    );
    stripeSubscriptionId = from.stripeSubscriptionId;
  } else {
    const created = await stripe.subscriptions.create(
      {
        customer: stripeCustomerId,
        default_payment_method: card,
        items: [{ price_data: priceData, quantity }],
        metadata,
      },
      options,
    );
    stripeSubscriptionId = created.id;
  }
  await recordPurchase(deps.db, config, projectId, {
    customer,
    choice: to,
    priceId,
    quantity,
    source: "purchase_page",
    testMode: false,
    paid: { stripeSubscriptionId },
  });
}
