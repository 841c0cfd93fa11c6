/**
 * A local stand-in for Stripe, for tests (there is no network here, and Stripe's test mode would need one): a real
 * HTTP server speaking the parts of Stripe's REST API that Gatehouse calls through the official `stripe` package
 * (form-encoded requests, `Stripe-Account` for connected accounts, JSON answers), Connect onboarding and a Checkout
 * page that a browser can open and pay, and webhook events signed the way Stripe signs them
 * (`Stripe-Signature: t=<seconds>,v1=<HMAC-SHA256 of "<t>.<body>">`), computed here independently of the package.
 *
 * What it keeps is in memory; what it does not know answers 404 as Stripe would, so a call Gatehouse makes that the
 * stand-in lacks fails the test instead of passing silently.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  billingStandIn,
  newId,
  now,
  paidInvoice,
  type StripeObject,
  succeededPayment,
  UNIT_SECONDS,
} from "./stripe-stand-in-billing.ts";
import {
  eventDelivery,
  json,
  notFound,
  parseStripeForm,
  readBody,
  type StripeEvent,
  standInPages,
} from "./stripe-stand-in-wire.ts";

export type { StripeEvent };

export type StripeStandIn = {
  /** `http://127.0.0.1:<port>`, for GATEHOUSE_STRIPE_API_URL. */
  url: string;
  secretKey: string;
  webhookSecret: string;
  accounts: Map<string, StripeObject>;
  sessions: Map<string, StripeObject>;
  subscriptions: Map<string, StripeObject>;
  /** SetupIntents and saved cards, refunds, payment method configurations (stripe-stand-in-billing.ts). */
  billing: ReturnType<typeof billingStandIn>;
  /** Every event sent, in order, with the HTTP status the webhook answered. */
  events: Array<{ event: StripeEvent; status: number }>;
  /** Every API request the stand-in answered, in order (`GET /v1/accounts/acct_…`). */
  apiRequests: string[];
  /** Resolves once every event sent so far was answered (those Stripe sends after answering a request too). */
  settled: () => Promise<void>;
  /** While a message is set, every API request is refused with it (a 400 Stripe does not retry); null ends that. */
  refuseRequests: (message: string | null) => void;
  /** Pays a checkout session as the checkout page's button does; resolves once its events were delivered. */
  pay: (sessionId: string) => Promise<void>;
  /** Sends an event about `object` on `account`, signed; resolves to the webhook's status. */
  send: (type: string, account: string, object: Record<string, unknown>) => Promise<number>;
  /** Delivers an event that was sent before, unchanged (a Stripe retry). */
  replay: (eventId: string) => Promise<number>;
  /** Ends a subscription now, as a failed renewal or a cancellation in Stripe's dashboard does. */
  endSubscription: (subscriptionId: string) => Promise<void>;
  /** A renewal invoice that could not be collected: `invoice.payment_failed` with status uncollectible. */
  failRenewal: (subscriptionId: string) => Promise<void>;
  /** Refunds a payment in full. */
  refund: (paymentIntentId: string, account: string) => Promise<void>;
  /** A Stripe-Signature header for `body`, as Stripe makes it. */
  sign: (body: string, secret?: string) => string;
  close: () => Promise<void>;
};

export type StripeStandInOptions = {
  /** Where events go; by default a POST to `webhookUrl`. Tests of an in-process app hand them to `app.request`. */
  deliver?: (body: string, signature: string) => Promise<number>;
  webhookUrl?: string;
};

const DAY_SECONDS = 24 * 3600;

export async function startStripeStandIn(options: StripeStandInOptions = {}): Promise<StripeStandIn> {
  const secretKey = `sk_test_${randomBytes(16).toString("hex")}`;
  const webhookSecret = `whsec_${randomBytes(24).toString("base64url")}`;
  const accounts = new Map<string, StripeObject>();
  const customers = new Map<string, StripeObject>();
  const sessions = new Map<string, StripeObject>();
  const subscriptions = new Map<string, StripeObject>();
  const paymentIntents = new Map<string, StripeObject>();
  const invoices: StripeObject[] = [];
  const events: StripeStandIn["events"] = [];
  const apiRequests: string[] = [];
  let refusal: string | null = null;
  let baseUrl = "";

  const { sign, post, send, settled } = eventDelivery({ webhookSecret, events, ...options });

  const billing = billingStandIn({ customers, subscriptions, paymentIntents, invoices, send });

  const pay = async (sessionId: string) => {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`no checkout session ${sessionId}`);
    if (session.status === "complete") return;
    const account = session.account as string;
    const line = (session.line_items as Array<Record<string, any>>)[0]!;
    const amount = Number(line.price_data.unit_amount) * Number(line.quantity ?? 1);
    if (session.mode === "subscription") {
      const recurring = line.price_data.recurring ?? {};
      const period =
        Number(recurring.interval_count ?? 1) * (UNIT_SECONDS[recurring.interval] ?? DAY_SECONDS);
      const subscription: StripeObject = {
        id: newId("sub"),
        object: "subscription",
        customer: session.customer,
        status: "active",
        cancel_at_period_end: false,
        cancel_at: null,
        canceled_at: null,
        ended_at: null,
        metadata: (session.subscription_data as { metadata?: unknown } | undefined)?.metadata ?? {},
        items: {
          object: "list",
          data: [{ id: newId("si"), current_period_start: now(), current_period_end: now() + period }],
        },
        account,
      };
      subscriptions.set(subscription.id, subscription);
      const payment = succeededPayment({ customer: session.customer, amount, account });
      paymentIntents.set(payment.id, payment);
      invoices.unshift(
        paidInvoice({
          customer: session.customer,
          payment,
          subscriptionId: subscription.id,
          hostedUrl: `${baseUrl}/invoices/${subscription.id}`,
          account,
        }),
      );
      session.subscription = subscription.id;
    } else {
      const intent = succeededPayment({
        customer: session.customer,
        amount,
        metadata: (session.payment_intent_data as { metadata?: unknown } | undefined)?.metadata,
        account,
      });
      paymentIntents.set(intent.id, intent);
      session.payment_intent = intent.id;
    }
    session.status = "complete";
    session.payment_status = "paid";
    await send("checkout.session.completed", account, session);
    if (session.subscription) {
      await send(
        "customer.subscription.created",
        account,
        subscriptions.get(session.subscription as string)!,
      );
      await send("invoice.payment_succeeded", account, invoices[0]!);
    }
  };

  const failRenewal = async (subscriptionId: string) => {
    const subscription = subscriptions.get(subscriptionId);
    if (!subscription) throw new Error(`no subscription ${subscriptionId}`);
    const paid = invoices.find((invoice) => invoice.customer === subscription.customer);
    const invoice: StripeObject = {
      ...paid,
      id: newId("in"),
      // A subscription made through the API (a plan switch) has no checkout invoice to copy its link from.
      parent: { subscription_details: { subscription: subscriptionId } },
      status: "uncollectible",
      amount_paid: 0,
      amount_due: paid?.total ?? 0,
      created: now(),
      account: subscription.account,
    };
    invoices.unshift(invoice);
    await send("invoice.payment_failed", subscription.account as string, invoice);
  };

  const endSubscription = async (subscriptionId: string) => {
    const subscription = subscriptions.get(subscriptionId);
    if (!subscription) throw new Error(`no subscription ${subscriptionId}`);
    Object.assign(subscription, { status: "canceled", ended_at: now(), canceled_at: now() });
    await send("customer.subscription.deleted", subscription.account as string, subscription);
  };

  const refund = async (paymentIntentId: string, account: string) => {
    const intent = paymentIntents.get(paymentIntentId);
    if (!intent) throw new Error(`no payment intent ${paymentIntentId}`);
    await send("charge.refunded", account, {
      id: newId("ch"),
      object: "charge",
      payment_intent: paymentIntentId,
      amount: intent.amount,
      amount_refunded: intent.amount,
      refunded: true,
    });
  };

  /** An object of the connected account named by the request, or undefined (Stripe: resource_missing). */
  const onAccount = <T extends StripeObject>(
    map: Map<string, T>,
    id: string,
    account: string | undefined,
  ) => {
    const found = map.get(id);
    return found && found.account === account ? found : undefined;
  };

  async function api(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      return json(res, 401, {
        error: { type: "invalid_request_error", message: "Invalid API Key provided" },
      });
    }
    apiRequests.push(`${req.method} ${url.pathname}`);
    if (refusal !== null) {
      return json(res, 400, { error: { type: "invalid_request_error", message: refusal } });
    }
    const account = req.headers["stripe-account"] as string | undefined;
    const body = parseStripeForm(req.method === "GET" ? url.search.slice(1) : await readBody(req));
    const path = url.pathname;
    const param = (pattern: RegExp) => pattern.exec(path)?.[1] ?? null;
    const accountPath = param(/^\/v1\/accounts\/([^/]+)$/);
    const customerPath = param(/^\/v1\/customers\/([^/]+)$/);
    const subscriptionPath = param(/^\/v1\/subscriptions\/([^/]+)$/);

    if (req.method === "POST" && path === "/v1/accounts") {
      const created: StripeObject = {
        id: newId("acct"),
        object: "account",
        charges_enabled: false,
        details_submitted: false,
        payouts_enabled: false,
        metadata: body.metadata ?? {},
        capabilities: body.capabilities ?? {},
        country: body.country,
      };
      accounts.set(created.id, created);
      return json(res, 200, created);
    }
    if (req.method === "GET" && accountPath) {
      const found = accounts.get(accountPath);
      return found ? json(res, 200, found) : notFound(res, "account");
    }
    if (req.method === "POST" && path === "/v1/account_links") {
      if (!accounts.has(body.account as string)) return notFound(res, "account");
      const link = new URL(`${baseUrl}/connect/onboarding/${body.account}`);
      link.searchParams.set("return_url", String(body.return_url));
      return json(res, 200, { object: "account_link", url: link.toString(), created: now() });
    }
    if (req.method === "POST" && path === "/v1/account_sessions") {
      if (!accounts.has(body.account as string)) return notFound(res, "account");
      return json(res, 200, {
        object: "account_session",
        account: body.account,
        client_secret: newId("acs_secret"),
      });
    }
    if (req.method === "POST" && path === "/v1/customers") {
      if (!account || !accounts.has(account)) return notFound(res, "account");
      const created: StripeObject = {
        id: newId("cus"),
        object: "customer",
        metadata: body.metadata ?? {},
        invoice_settings: { default_payment_method: null },
        account,
      };
      customers.set(created.id, created);
      return json(res, 200, created);
    }
    if (req.method === "GET" && customerPath) {
      const found = onAccount(customers, customerPath, account);
      return found ? json(res, 200, billing.expandCustomer(found, body.expand)) : notFound(res, "customer");
    }
    if (req.method === "POST" && path === "/v1/checkout/sessions") {
      if (!account || !accounts.has(account)) return notFound(res, "account");
      if (!customers.has(body.customer as string)) return notFound(res, "customer");
      const id = newId("cs_test");
      const created: StripeObject = {
        ...body,
        id,
        object: "checkout.session",
        url: `${baseUrl}/checkout/${id}`,
        status: "open",
        payment_status: "unpaid",
        subscription: null,
        payment_intent: null,
        account,
      };
      sessions.set(id, created);
      return json(res, 200, created);
    }
    if (subscriptionPath) {
      const found = onAccount(subscriptions, subscriptionPath, account);
      if (!found) return notFound(res, "subscription");
      if (req.method === "POST") {
        if (body.cancel_at_period_end !== undefined)
          found.cancel_at_period_end = body.cancel_at_period_end === "true";
        billing.updateSubscriptionItems(found, body);
        json(res, 200, found);
        // Stripe tells the webhook about the change too, after answering.
        await send("customer.subscription.updated", account!, found);
        return;
      }
      return json(res, 200, found);
    }
    if (req.method === "GET" && path === "/v1/invoices") {
      const subscriptionOf = (invoice: StripeObject) =>
        (invoice.parent as { subscription_details?: { subscription?: string } } | undefined)
          ?.subscription_details?.subscription;
      const data = invoices.filter(
        (invoice) =>
          (body.customer === undefined || invoice.customer === body.customer) &&
          (body.subscription === undefined || subscriptionOf(invoice) === body.subscription) &&
          invoice.account === account,
      );
      return json(res, 200, { object: "list", data, has_more: false, url: "/v1/invoices" });
    }
    const billed = await billing.handle(req.method ?? "GET", path, body, account);
    if (billed) {
      json(res, billed.status, billed.body);
      await billed.after?.();
      return;
    }
    return notFound(res, `route ${req.method} ${path}`);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const handle = url.pathname.startsWith("/v1/") ? api : standInPages({ accounts, sessions, pay });
    handle(req, res, url).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: { type: "api_error", message: String(error) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: baseUrl,
    secretKey,
    webhookSecret,
    accounts,
    sessions,
    subscriptions,
    billing,
    events,
    apiRequests,
    settled,
    refuseRequests: (message) => {
      refusal = message;
    },
    pay,
    send,
    replay: async (eventId) => {
      const sent = events.find((each) => each.event.id === eventId);
      if (!sent) throw new Error(`no event ${eventId}`);
      return post(sent.event);
    },
    endSubscription,
    failRenewal,
    refund,
    sign,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
