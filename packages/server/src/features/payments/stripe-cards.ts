/**
 * A customer's saved card at Stripe (PROTOCOL-EXTRA §2.3): a SetupIntent the app confirms with Stripe.js, then made
 * the customer's default, which plan switches charge. Everything happens on the project's connected account.
 */
import type Stripe from "stripe";
import type { Database } from "../../db/index.ts";
import type { ServerEnv } from "../../env.ts";
import { StatusError } from "../../http/status-error.ts";
import type { Customer } from "./catalogue.ts";
import {
  type Billing,
  cardView,
  ensureStripeCustomer,
  findStripeAccountId,
  findStripeCustomerId,
  stripeClient,
} from "./stripe.ts";

type StripeDeps = { db: Database; env: ServerEnv };

/** The project's connected account, or the plain 400 every card route answers without one. */
export async function connectedAccountOf(db: Database, projectId: string): Promise<string> {
  const accountId = await findStripeAccountId(db, projectId);
  if (!accountId) throw new StatusError(400, "This project has not connected a Stripe account yet.");
  return accountId;
}

/** A card SetupIntent for the customer (its Stripe customer made on first use), for Stripe.js to confirm. */
export async function createCardSetupIntent(
  deps: StripeDeps,
  projectId: string,
  customer: Customer,
): Promise<{ client_secret: string; stripe_account_id: string }> {
  const accountId = await connectedAccountOf(deps.db, projectId);
  const stripeCustomerId = await ensureStripeCustomer(deps, projectId, accountId, customer);
  const stripe = await stripeClient(deps.env);
  const intent = await stripe.setupIntents.create(
    { customer: stripeCustomerId, allowed_payment_method_types: ["card"], usage: "off_session" },
    { stripeAccount: accountId },
  );
  if (!intent.client_secret) throw new Error("Stripe made a SetupIntent without a client secret");
  return { client_secret: intent.client_secret, stripe_account_id: accountId };
}

const NOT_THE_CUSTOMERS = "This setup intent does not belong to this customer.";

/**
 * Makes the card a succeeded SetupIntent saved the customer's default. An intent of another customer, or one Stripe
 * does not know on this account, is a plain 403 (the two are not told apart); one not yet succeeded a plain 400.
 */
export async function setDefaultCardFromSetupIntent(
  deps: StripeDeps,
  projectId: string,
  customer: Customer,
  setupIntentId: string,
): Promise<NonNullable<Billing["default_payment_method"]>> {
  const accountId = await connectedAccountOf(deps.db, projectId);
  const stripeCustomerId = await findStripeCustomerId(deps.db, projectId, customer);
  if (!stripeCustomerId) throw new StatusError(403, NOT_THE_CUSTOMERS);
  const stripe = await stripeClient(deps.env);
  let intent: Stripe.SetupIntent;
  try {
    intent = await stripe.setupIntents.retrieve(setupIntentId, {}, { stripeAccount: accountId });
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) throw new StatusError(403, NOT_THE_CUSTOMERS);
    throw error;
  }
  const owner = typeof intent.customer === "string" ? intent.customer : intent.customer?.id;
  if (owner !== stripeCustomerId) throw new StatusError(403, NOT_THE_CUSTOMERS);
  if (intent.status !== "succeeded") {
    throw new StatusError(400, `This setup intent has not succeeded (its status is ${intent.status}).`);
  }
  const methodId =
    typeof intent.payment_method === "string" ? intent.payment_method : intent.payment_method?.id;
  if (!methodId) throw new StatusError(400, "This setup intent saved no payment method.");
  await stripe.customers.update(
    stripeCustomerId,
    { invoice_settings: { default_payment_method: methodId } },
    { stripeAccount: accountId },
  );
  const method = await stripe.paymentMethods.retrieve(methodId, {}, { stripeAccount: accountId });
  return cardView(method);
}

/** The customer's default card at Stripe, or null (no Stripe customer, or no default set). */
export async function defaultCardId(
  deps: StripeDeps,
  accountId: string,
  stripeCustomerId: string | null,
): Promise<string | null> {
  if (!stripeCustomerId) return null;
  const stripe = await stripeClient(deps.env);
  const found = await stripe.customers.retrieve(stripeCustomerId, {}, { stripeAccount: accountId });
  if (found.deleted) return null;
  const method = found.invoice_settings?.default_payment_method;
  return typeof method === "string" ? method : (method?.id ?? null);
}
