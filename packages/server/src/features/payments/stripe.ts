/**
 * Stripe, through the official `stripe` package (PROTOCOL-EXTRA §2.4-2.6): the platform's client from the server's
 * environment, the project's connected account (`stripe_accounts`), the Stripe customer behind each of our
 * customers (`stripe_customers`), and reading a subscription's state. Every call on a project's behalf goes to its
 * connected account (`stripeAccount`). `GATEHOUSE_STRIPE_API_URL` points the client elsewhere (tests run a local
 * stand-in: testing/stripe-stand-in.ts).
 */
import type { WireBilling } from "@gatehouse/shared";
import { and, eq } from "drizzle-orm";
import type Stripe from "stripe";
import type { Database } from "../../db/index.ts";
import type { ServerEnv } from "../../env.ts";
import type { StripeSettings } from "../../env-services.ts";
import type { AnyRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import type { Customer } from "./catalogue.ts";
import { stripeAccounts, stripeCustomers } from "./schema.ts";

const clients = new WeakMap<StripeSettings, Stripe>();

/**
 * The platform's Stripe client, or a plain 400 saying how to configure one. The `stripe` package is loaded with the
 * first call rather than at start (~0.1 s, ~5 MiB), since most servers never talk to Stripe.
 */
export async function stripeClient(env: Pick<ServerEnv, "stripe">): Promise<Stripe> {
  const settings = env.stripe;
  if (!settings) {
    throw new StatusError(
      400,
      "Stripe is not configured on this server: set STACK_STRIPE_SECRET_KEY (and STACK_STRIPE_WEBHOOK_SECRET), or use payments test mode.",
    );
  }
  const { default: StripeClient } = await import("stripe");
  // Synchronous from here on, so that calls racing on first use share one client.
  let client = clients.get(settings);
  if (!client) {
    const api = settings.apiUrl ? new URL(settings.apiUrl) : null;
    client = new StripeClient(settings.secretKey, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      telemetry: false,
      ...(api
        ? {
            host: api.hostname,
            port: Number(api.port || (api.protocol === "https:" ? 443 : 80)),
            protocol: api.protocol === "https:" ? "https" : "http",
          }
        : {}),
    });
    clients.set(settings, client);
  }
  return client;
}

/**
 * A route that calls Stripe, with Stripe's own failures (unreachable, refusing, rate limited) answered as 502 rather
 * than as the 500 of a bug of ours: whoever sees it can tell that Stripe is the part to look at, and the failure is
 * logged once. An owner's route says what Stripe said; a public one (the purchase page) only that Stripe failed.
 */
export function answeringStripeFailures<R extends AnyRoute>(route: R): R {
  const handler = route.handler;
  return {
    ...route,
    handler: async (context: Parameters<R["handler"]>[0]) => {
      try {
        return await handler(context);
      } catch (error) {
        if (!isStripeError(error)) throw error;
        console.warn(`[payments] Stripe failed during ${route.method} ${route.path}: ${error.message}`);
        throw new StatusError(
          502,
          route.access === "public"
            ? "Payments are unavailable right now (Stripe did not complete the request). Please try again later."
            : `Stripe did not complete the request: ${error.message}`,
        );
      }
    },
  };
}

/** The `stripe` package's errors carry a `type` such as "StripeConnectionError" or "StripeInvalidRequestError". */
function isStripeError(error: unknown): error is Error & { type: string } {
  const type = (error as { type?: unknown } | null)?.type;
  return error instanceof Error && typeof type === "string" && type.startsWith("Stripe");
}

export async function findStripeAccountId(db: Database, projectId: string): Promise<string | null> {
  const [row] = await db.select().from(stripeAccounts).where(eq(stripeAccounts.projectId, projectId));
  return row?.accountId ?? null;
}

export async function projectOfStripeAccount(db: Database, accountId: string): Promise<string | null> {
  const [row] = await db.select().from(stripeAccounts).where(eq(stripeAccounts.accountId, accountId));
  return row?.projectId ?? null;
}

/**
 * The project's connected account, created on first use (US, card payments and transfers, as the reference makes
 * them). Two parallel first calls may both create one at Stripe; the first row stored wins and is used by both.
 */
export async function ensureStripeAccount(
  deps: { db: Database; env: ServerEnv },
  projectId: string,
): Promise<string> {
  const existing = await findStripeAccountId(deps.db, projectId);
  if (existing) return existing;
  const stripe = await stripeClient(deps.env);
  const account = await stripe.accounts.create({
    country: "US",
    capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
    metadata: { tenancyId: projectId },
  });
  await deps.db
    .insert(stripeAccounts)
    .values({ projectId, accountId: account.id, createdAt: new Date() })
    .onConflictDoNothing();
  return (await findStripeAccountId(deps.db, projectId))!;
}

export async function findStripeCustomerId(
  db: Database,
  projectId: string,
  customer: Customer,
): Promise<string | null> {
  const [row] = await db
    .select()
    .from(stripeCustomers)
    .where(
      and(
        eq(stripeCustomers.projectId, projectId),
        eq(stripeCustomers.customerType, customer.type),
        eq(stripeCustomers.customerId, customer.id),
      ),
    );
  return row?.stripeCustomerId ?? null;
}

/** The Stripe customer of one of our customers on the project's account, created on first use. */
export async function ensureStripeCustomer(
  deps: { db: Database; env: ServerEnv },
  projectId: string,
  accountId: string,
  customer: Customer,
): Promise<string> {
  const existing = await findStripeCustomerId(deps.db, projectId, customer);
  if (existing) return existing;
  const stripe = await stripeClient(deps.env);
  const created = await stripe.customers.create(
    { metadata: { customerId: customer.id, customerType: customer.type.toUpperCase() } },
    { stripeAccount: accountId },
  );
  await deps.db
    .insert(stripeCustomers)
    .values({
      projectId,
      customerType: customer.type,
      customerId: customer.id,
      stripeCustomerId: created.id,
      createdAt: new Date(),
    })
    .onConflictDoNothing();
  return (await findStripeCustomerId(deps.db, projectId, customer))!;
}

/** `"29.99"` dollars as 2999 cents: Stripe counts in the currency's smallest unit. */
export function usdToCents(amount: string): number {
  const [whole, fraction = ""] = amount.split(".");
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0").slice(0, 2));
}

/** When a Stripe subscription stops granting, as our purchase row keeps it: null while it goes on. */
export function subscriptionEnd(subscription: Stripe.Subscription): Date | null {
  const seconds = (value: number | null | undefined) => (value ? new Date(value * 1000) : null);
  if (subscription.status === "canceled" || subscription.status === "incomplete_expired") {
    return seconds(subscription.ended_at) ?? seconds(subscription.canceled_at) ?? new Date();
  }
  if (subscription.cancel_at_period_end || subscription.cancel_at) {
    // Since the 2025 API versions the period lives on the subscription's items.
    const item = subscription.items?.data?.[0] as { current_period_end?: number } | undefined;
    const legacy = (subscription as unknown as { current_period_end?: number }).current_period_end;
    return seconds(subscription.cancel_at) ?? seconds(item?.current_period_end ?? legacy) ?? null;
  }
  return null;
}

/** Cancels a Stripe subscription at the end of its period; returns when it will end. */
export async function cancelStripeSubscriptionAtPeriodEnd(
  deps: { db: Database; env: ServerEnv },
  projectId: string,
  stripeSubscriptionId: string,
): Promise<Date | null> {
  const accountId = await findStripeAccountId(deps.db, projectId);
  if (!accountId)
    throw new StatusError(400, "This subscription was paid through Stripe, which is no longer connected.");
  const stripe = await stripeClient(deps.env);
  const updated = await stripe.subscriptions.update(
    stripeSubscriptionId,
    { cancel_at_period_end: true },
    { stripeAccount: accountId },
  );
  return subscriptionEnd(updated);
}

export type Billing = WireBilling;

/** A customer's billing details at Stripe; `has_customer: false` for one that never started a card payment. */
export async function billingOf(
  deps: { db: Database; env: ServerEnv },
  projectId: string,
  customer: Customer,
): Promise<Billing> {
  const accountId = await findStripeAccountId(deps.db, projectId);
  const stripeCustomerId = accountId ? await findStripeCustomerId(deps.db, projectId, customer) : null;
  if (!accountId || !stripeCustomerId || !deps.env.stripe)
    return { has_customer: false, default_payment_method: null };
  const stripe = await stripeClient(deps.env);
  const found = await stripe.customers.retrieve(
    stripeCustomerId,
    { expand: ["invoice_settings.default_payment_method"] },
    { stripeAccount: accountId },
  );
  if (found.deleted) return { has_customer: false, default_payment_method: null };
  const method = found.invoice_settings?.default_payment_method;
  if (!method || typeof method === "string") return { has_customer: true, default_payment_method: null };
  return { has_customer: true, default_payment_method: cardView(method) };
}

/** A saved payment method as the billing routes show it. */
export function cardView(method: Stripe.PaymentMethod): NonNullable<Billing["default_payment_method"]> {
  return {
    id: method.id,
    brand: method.card?.brand ?? null,
    last4: method.card?.last4 ?? null,
    exp_month: method.card?.exp_month ?? null,
    exp_year: method.card?.exp_year ?? null,
  };
}

const INVOICE_STATUSES = ["draft", "open", "paid", "uncollectible", "void"] as const;

export type InvoiceView = {
  created_at_millis: number;
  status: (typeof INVOICE_STATUSES)[number] | null;
  amount_total: number;
  hosted_invoice_url: string | null;
};

/** A customer's Stripe invoices, newest first; none for a customer that never paid through Stripe. */
export async function invoicesOf(
  deps: { db: Database; env: ServerEnv },
  projectId: string,
  customer: Customer,
  limit: number,
  cursor: string | undefined,
): Promise<{ items: InvoiceView[]; nextCursor: string | null }> {
  const accountId = await findStripeAccountId(deps.db, projectId);
  const stripeCustomerId = accountId ? await findStripeCustomerId(deps.db, projectId, customer) : null;
  if (!accountId || !stripeCustomerId || !deps.env.stripe) return { items: [], nextCursor: null };
  const stripe = await stripeClient(deps.env);
  const page = await stripe.invoices.list(
    { customer: stripeCustomerId, limit, ...(cursor ? { starting_after: cursor } : {}) },
    { stripeAccount: accountId },
  );
  const items = page.data.map((invoice) => ({
    created_at_millis: invoice.created * 1000,
    status: INVOICE_STATUSES.find((status) => status === invoice.status) ?? null,
    amount_total: invoice.total,
    hosted_invoice_url: invoice.hosted_invoice_url ?? null,
  }));
  const last = page.data[page.data.length - 1];
  return { items, nextCursor: page.has_more && last?.id ? last.id : null };
}
