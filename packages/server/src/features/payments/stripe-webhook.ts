/**
 * `POST /integrations/stripe/webhooks` (PROTOCOL-EXTRA §2.6): Stripe's Connect events, verified against
 * `STACK_STRIPE_WEBHOOK_SECRET` over the exact bytes sent. A completed Checkout records the purchase its purchase
 * code described (once per checkout session, however often Stripe delivers the event); any subscription or invoice
 * event re-reads the subscription from Stripe and stores when it ends, so events arriving late, twice or out of
 * order leave the state Stripe has now; a refunded charge ends what its payment bought.
 *
 * Unlike the reference, an event type we do not act on is acknowledged (200), not failed: failing it would only
 * make Stripe retry, for days, something that will never change.
 */
import type Stripe from "stripe";
import { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import { defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { findCodeById } from "../verification-codes/service.ts";
import type { Customer } from "./catalogue.ts";
import { rememberStripeAccount } from "./charges-enabled.ts";
import { formatUsd, sendPaymentEmail } from "./notifications.ts";
import type { PurchaseCodeData } from "./purchase-codes.ts";
import {
  markRefundedByPaymentIntent,
  purchaseOfSubscription,
  recordPurchase,
  syncSubscriptionEnd,
} from "./purchases.ts";
import { projectOfStripeAccount, stripeClient, subscriptionEnd, usdToCents } from "./stripe.ts";
import type { CheckoutMetadata } from "./stripe-routes.ts";

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === "string" ? value : value.id;

async function syncSubscription(
  deps: AppDeps,
  projectId: string,
  accountId: string,
  subscriptionId: string,
): Promise<Stripe.Subscription> {
  const stripe = await stripeClient(deps.env);
  const subscription = await stripe.subscriptions.retrieve(subscriptionId, {}, { stripeAccount: accountId });
  await syncSubscriptionEnd(deps.db, projectId, subscription.id, subscriptionEnd(subscription));
  return subscription;
}

/** What a checkout or subscription was for, from the purchase code its metadata names; null if not ours. */
async function purchaseOf(
  deps: AppDeps,
  projectId: string,
  metadata: Partial<CheckoutMetadata> | null | undefined,
) {
  if (
    !metadata ||
    metadata.gatehouse_project_id !== projectId ||
    !metadata.purchase_code_id ||
    !metadata.price_id
  ) {
    return null;
  }
  const code = await findCodeById(deps.db, projectId, "purchase", metadata.purchase_code_id);
  if (!code) return null;
  const data = code.data as PurchaseCodeData;
  return {
    data,
    productName: data.product.display_name,
    customer: { type: data.customer_type, id: data.customer_id } as Customer,
    priceId: metadata.price_id,
    quantity: Math.max(1, Number.parseInt(metadata.quantity ?? "1", 10) || 1),
  };
}

async function completeCheckout(
  deps: AppDeps,
  projectId: string,
  accountId: string,
  session: Stripe.Checkout.Session,
) {
  // A checkout some other integration made on the account, or one for another project, is not ours to grant.
  const purchase = await purchaseOf(deps, projectId, session.metadata as Partial<CheckoutMetadata> | null);
  if (!purchase) return;
  const { data, customer, priceId, quantity } = purchase;
  const config = await getRenderedConfig(deps, projectId);
  const subscriptionId = idOf(session.subscription);
  let endsAt: Date | null = null;
  if (subscriptionId) {
    const stripe = await stripeClient(deps.env);
    const subscription = await stripe.subscriptions.retrieve(
      subscriptionId,
      {},
      { stripeAccount: accountId },
    );
    endsAt = subscriptionEnd(subscription);
  }
  await recordPurchase(deps.db, config, projectId, {
    customer,
    choice: {
      productId: data.product_id,
      product: data.product,
      lineId:
        data.product_id === null ? null : (config.payments.products[data.product_id]?.productLineId ?? null),
    },
    priceId,
    quantity,
    source: "purchase_page",
    testMode: false,
    idempotencyKey: `stripe-checkout:${session.id}`,
    paid: {
      stripeSubscriptionId: subscriptionId,
      stripePaymentIntentId: idOf(session.payment_intent),
      endsAt,
    },
  });
  // A subscription's receipts come with its invoices; a one-time payment's comes now.
  if (!subscriptionId) {
    const price = data.product.prices[priceId]?.USD;
    const cents = session.amount_total ?? (price ? usdToCents(price) * quantity : 0);
    await sendPaymentEmail(deps, projectId, customer, `receipt:${session.id}`, {
      kind: "payment_receipt",
      variables: { productName: data.product.display_name, quantity, amount: formatUsd(cents) },
    });
  }
}

/** Receipts and failure notices for a subscription's invoices, to the customer its checkout was for. */
async function notifyInvoice(
  deps: AppDeps,
  projectId: string,
  type: string,
  invoice: Stripe.Invoice,
  subscription: Stripe.Subscription,
) {
  const paid = type === "invoice.payment_succeeded" || type === "invoice.paid";
  const failedForGood = type === "invoice.payment_failed" && invoice.status === "uncollectible";
  if (!paid && !failedForGood) return;
  const purchase =
    (await purchaseOf(deps, projectId, subscription.metadata as Partial<CheckoutMetadata>)) ??
    (await purchaseOfSubscription(deps.db, projectId, subscription.id));
  if (!purchase || !invoice.id) return;
  const productName = purchase.productName;
  const link = invoice.hosted_invoice_url ?? invoice.invoice_pdf ?? undefined;
  if (paid) {
    await sendPaymentEmail(deps, projectId, purchase.customer, `receipt:${invoice.id}`, {
      kind: "payment_receipt",
      variables: {
        productName,
        quantity: purchase.quantity,
        amount: formatUsd(invoice.amount_paid ?? invoice.total),
        ...(link ? { receiptLink: link } : {}),
      },
    });
  } else {
    await sendPaymentEmail(deps, projectId, purchase.customer, `failed:${invoice.id}`, {
      kind: "payment_failed",
      variables: {
        productName,
        amount: formatUsd(invoice.amount_due ?? invoice.total),
        ...(link ? { invoiceUrl: link } : {}),
      },
    });
  }
}

/** The subscription an invoice belongs to, in the API versions before and after invoices gained `parent`. */
function invoiceSubscriptionId(invoice: Stripe.Invoice): string | null {
  const parent = (
    invoice as { parent?: { subscription_details?: { subscription?: string | { id: string } } } }
  ).parent;
  const legacy = (invoice as { subscription?: string | { id: string } | null }).subscription;
  return idOf(parent?.subscription_details?.subscription ?? legacy);
}

export async function handleStripeEvent(deps: AppDeps, event: Stripe.Event): Promise<void> {
  const accountId = event.account;
  if (!accountId) return;
  const projectId = await projectOfStripeAccount(deps.db, accountId);
  if (!projectId) return;
  const type = event.type as string;
  if (type === "account.updated") {
    rememberStripeAccount(event.data.object as Stripe.Account);
  } else if (type === "checkout.session.completed" || type === "checkout.session.async_payment_succeeded") {
    const session = event.data.object as Stripe.Checkout.Session;
    // A bank debit completes the checkout before the money arrives; async_payment_succeeded follows.
    if (session.payment_status === "unpaid") return;
    await completeCheckout(deps, projectId, accountId, session);
  } else if (type.startsWith("customer.subscription.")) {
    await syncSubscription(deps, projectId, accountId, (event.data.object as Stripe.Subscription).id);
  } else if (type.startsWith("invoice.")) {
    const invoice = event.data.object as Stripe.Invoice;
    const subscriptionId = invoiceSubscriptionId(invoice);
    if (!subscriptionId) return;
    const subscription = await syncSubscription(deps, projectId, accountId, subscriptionId);
    await notifyInvoice(deps, projectId, type, invoice, subscription);
  } else if (type === "charge.refunded") {
    const charge = event.data.object as Stripe.Charge;
    const paymentIntentId = idOf(charge.payment_intent);
    // A partial refund keeps the purchase; only a full one takes it back.
    if (charge.refunded && paymentIntentId)
      await markRefundedByPaymentIntent(deps.db, projectId, paymentIntentId);
  }
}

export const stripeWebhookRoutes = [
  defineRoute({
    method: "POST",
    path: "/integrations/stripe/webhooks",
    summary: "Stripe's webhook: Connect events about the projects' checkouts, subscriptions and refunds",
    tags: ["Payments"],
    // Stripe's signature over the body is the credential.
    access: "public",
    rawBody: true,
    response: { body: z.object({ received: z.literal(true) }) },
    handler: async ({ deps, rawBody, request }) => {
      const secret = deps.env.stripe?.webhookSecret;
      if (!secret) throw new StatusError(400, "Stripe webhooks are not configured on this server.");
      const signature = request.headers.get("stripe-signature");
      if (!signature) throw new StatusError(400, "The stripe-signature header is missing.");
      let event: Stripe.Event;
      try {
        const stripe = await stripeClient(deps.env);
        event = stripe.webhooks.constructEvent(rawBody ?? "", signature, secret);
      } catch {
        throw new StatusError(400, "The stripe-signature header does not match the body.");
      }
      await handleStripeEvent(deps, event);
      return { body: { received: true } };
    },
  }),
];
