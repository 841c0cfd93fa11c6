/**
 * The stand-in's billing part (testing/stripe-stand-in.ts): SetupIntents and the cards they save, a customer's
 * default card, subscriptions made or changed through the API (plan switches), Products for their prices, refunds
 * and the account's payment method configuration. Kept apart so each file stays readable; the main stand-in hands
 * it the objects both share and asks it first about every API request.
 */
import { randomBytes } from "node:crypto";

export type StripeObject = Record<string, unknown> & { id: string };

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;
export const now = () => Math.floor(Date.now() / 1000);

const DAY_SECONDS = 24 * 3600;
export const UNIT_SECONDS: Record<string, number> = {
  day: DAY_SECONDS,
  week: 7 * DAY_SECONDS,
  month: 30 * DAY_SECONDS,
  year: 365 * DAY_SECONDS,
};

/** A card payment that went through. */
export function succeededPayment(fields: {
  customer: unknown;
  amount: number;
  metadata?: unknown;
  account: string;
}): StripeObject {
  return {
    id: newId("pi"),
    object: "payment_intent",
    amount: fields.amount,
    currency: "usd",
    status: "succeeded",
    customer: fields.customer,
    metadata: fields.metadata ?? {},
    account: fields.account,
  };
}

/** A subscription's paid invoice; a refund of the subscription goes back to its payment. */
export function paidInvoice(fields: {
  customer: unknown;
  payment: StripeObject;
  subscriptionId: string;
  hostedUrl: string | null;
  account: string;
}): StripeObject {
  return {
    id: newId("in"),
    object: "invoice",
    customer: fields.customer,
    status: "paid",
    total: fields.payment.amount,
    amount_paid: fields.payment.amount,
    created: now(),
    payment_intent: fields.payment.id,
    hosted_invoice_url: fields.hostedUrl,
    parent: { subscription_details: { subscription: fields.subscriptionId } },
    account: fields.account,
  };
}

type Shared = {
  customers: Map<string, StripeObject>;
  subscriptions: Map<string, StripeObject>;
  paymentIntents: Map<string, StripeObject>;
  invoices: StripeObject[];
  send: (type: string, account: string, object: Record<string, unknown>) => Promise<number>;
};

export type ApiAnswer = { status: number; body: unknown; after?: () => Promise<unknown> };

const missing = (what: string): ApiAnswer => ({
  status: 404,
  body: { error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${what}` } },
});

/** The payment methods of a new account's default configuration, as Stripe lists them. */
const DEFAULT_METHODS: Record<string, { available: boolean; preference: "on" | "off" }> = {
  card: { available: true, preference: "on" },
  apple_pay: { available: true, preference: "on" },
  google_pay: { available: true, preference: "on" },
  link: { available: true, preference: "off" },
  klarna: { available: false, preference: "off" },
};

export function billingStandIn(shared: Shared) {
  const setupIntents = new Map<string, StripeObject>();
  const paymentMethods = new Map<string, StripeObject>();
  const products = new Map<string, StripeObject>();
  const refunds: StripeObject[] = [];
  const methodConfigs = new Map<string, StripeObject>();

  const onAccount = (map: Map<string, StripeObject>, id: string, account: string | undefined) => {
    const found = map.get(id);
    return found && found.account === account ? found : undefined;
  };

  const configOf = (account: string): StripeObject => {
    let config = methodConfigs.get(account);
    if (!config) {
      config = {
        id: newId("pmc"),
        object: "payment_method_configuration",
        is_default: true,
        active: true,
        account,
      };
      for (const [method, { available, preference }] of Object.entries(DEFAULT_METHODS)) {
        config[method] = {
          available,
          display_preference: { overridable: true, preference, value: available ? preference : "off" },
        };
      }
      methodConfigs.set(account, config);
    }
    return config;
  };

  /** The subscription's one item, priced as the request's `items[0]` says. */
  const itemFrom = (request: Record<string, any>, period: { start: number } | null) => {
    const price = request.price_data ?? {};
    const recurring = price.recurring ?? {};
    const length = Number(recurring.interval_count ?? 1) * (UNIT_SECONDS[recurring.interval] ?? DAY_SECONDS);
    const start = period?.start ?? now();
    return {
      id: request.id ?? newId("si"),
      price: {
        id: newId("price"),
        currency: price.currency,
        unit_amount: Number(price.unit_amount),
        product: price.product,
        recurring: { interval: recurring.interval, interval_count: Number(recurring.interval_count ?? 1) },
      },
      quantity: Number(request.quantity ?? 1),
      current_period_start: start,
      current_period_end: start + length,
    };
  };

  /** A subscription made through the API (not Checkout): paid at once with the customer's default card. */
  const createSubscription = (body: Record<string, any>, account: string): ApiAnswer => {
    const customer = onAccount(shared.customers, body.customer, account);
    if (!customer) return missing("customer");
    const card =
      body.default_payment_method ??
      (customer.invoice_settings as { default_payment_method: string | null }).default_payment_method;
    if (!card) {
      return {
        status: 400,
        body: {
          error: { type: "invalid_request_error", message: "This customer has no attached payment source" },
        },
      };
    }
    const item = itemFrom((body.items as Record<string, any>[])[0] ?? {}, null);
    const subscription: StripeObject = {
      id: newId("sub"),
      object: "subscription",
      customer: customer.id,
      status: "active",
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      default_payment_method: card,
      metadata: body.metadata ?? {},
      items: { object: "list", data: [item] },
      account,
    };
    shared.subscriptions.set(subscription.id, subscription);
    const payment = succeededPayment({
      customer: customer.id,
      amount: item.price.unit_amount * item.quantity,
      account,
    });
    shared.paymentIntents.set(payment.id, payment);
    shared.invoices.unshift(
      paidInvoice({
        customer: customer.id,
        payment,
        subscriptionId: subscription.id,
        hostedUrl: null,
        account,
      }),
    );
    return {
      status: 200,
      body: subscription,
      after: () => shared.send("customer.subscription.created", account, subscription),
    };
  };

  return {
    setupIntents,
    paymentMethods,
    refunds,
    methodConfigs,

    /** What Stripe.js does when the customer enters a card for a SetupIntent: the card is saved to the customer. */
    confirmSetupIntent(id: string, card: { brand?: string; last4?: string } = {}): string {
      const intent = setupIntents.get(id);
      if (!intent) throw new Error(`no setup intent ${id}`);
      const method: StripeObject = {
        id: newId("pm"),
        object: "payment_method",
        type: "card",
        customer: intent.customer,
        card: { brand: card.brand ?? "visa", last4: card.last4 ?? "4242", exp_month: 12, exp_year: 2034 },
        account: intent.account,
      };
      paymentMethods.set(method.id, method);
      Object.assign(intent, { status: "succeeded", payment_method: method.id });
      return method.id;
    },

    /** `expand[]=invoice_settings.default_payment_method` on a customer read. */
    expandCustomer(customer: StripeObject, expand: unknown): StripeObject {
      const settings = customer.invoice_settings as { default_payment_method: string | null };
      const wanted = Array.isArray(expand) && expand.includes("invoice_settings.default_payment_method");
      if (!wanted || !settings.default_payment_method) return customer;
      const method = paymentMethods.get(settings.default_payment_method) ?? null;
      return { ...customer, invoice_settings: { ...settings, default_payment_method: method } };
    },

    /** A subscription update that changes its item (a plan switch); other updates stay with the main stand-in. */
    updateSubscriptionItems(subscription: StripeObject, body: Record<string, any>) {
      if (!Array.isArray(body.items)) return;
      const items = subscription.items as { data: Array<{ id: string; current_period_start: number }> };
      const current = items.data[0];
      items.data = [itemFrom(body.items[0], current ? { start: current.current_period_start } : null)];
      if (body.metadata) subscription.metadata = body.metadata;
    },

    /** Answers the billing routes; null for any other request. */
    async handle(
      method: string,
      path: string,
      body: Record<string, any>,
      account: string | undefined,
    ): Promise<ApiAnswer | null> {
      const param = (pattern: RegExp) => pattern.exec(path)?.[1] ?? null;
      const setupIntentId = param(/^\/v1\/setup_intents\/([^/]+)$/);
      const paymentMethodId = param(/^\/v1\/payment_methods\/([^/]+)$/);
      const customerId = param(/^\/v1\/customers\/([^/]+)$/);
      const configId = param(/^\/v1\/payment_method_configurations\/([^/]+)$/);

      if (method === "POST" && path === "/v1/setup_intents") {
        if (!onAccount(shared.customers, body.customer, account)) return missing("customer");
        const id = newId("seti");
        const intent: StripeObject = {
          id,
          object: "setup_intent",
          client_secret: `${id}_secret_${randomBytes(8).toString("hex")}`,
          customer: body.customer,
          usage: body.usage,
          allowed_payment_method_types: body.allowed_payment_method_types,
          status: "requires_payment_method",
          payment_method: null,
          account,
        };
        setupIntents.set(id, intent);
        return { status: 200, body: intent };
      }
      if (method === "GET" && setupIntentId) {
        const found = onAccount(setupIntents, setupIntentId, account);
        return found ? { status: 200, body: found } : missing("setupintent");
      }
      if (method === "GET" && paymentMethodId) {
        const found = onAccount(paymentMethods, paymentMethodId, account);
        return found ? { status: 200, body: found } : missing("payment_method");
      }
      if (method === "POST" && customerId) {
        const found = onAccount(shared.customers, customerId, account);
        if (!found) return missing("customer");
        const wanted = body.invoice_settings?.default_payment_method;
        if (wanted !== undefined) {
          if (!onAccount(paymentMethods, wanted, account)) return missing("payment_method");
          found.invoice_settings = { default_payment_method: wanted };
        }
        return { status: 200, body: found };
      }
      if (method === "POST" && path === "/v1/products") {
        if (!account) return missing("account");
        const product: StripeObject = { id: newId("prod"), object: "product", name: body.name, account };
        products.set(product.id, product);
        return { status: 200, body: product };
      }
      if (method === "POST" && path === "/v1/subscriptions") {
        return account ? createSubscription(body, account) : missing("account");
      }
      if (method === "POST" && path === "/v1/refunds") {
        const intent = onAccount(shared.paymentIntents, body.payment_intent, account);
        if (!intent) return missing("payment_intent");
        const amount = body.amount === undefined ? Number(intent.amount) : Number(body.amount);
        const refunded = refunds
          .filter((refund) => refund.payment_intent === intent.id)
          .reduce((sum, refund) => sum + Number(refund.amount), 0);
        if (amount + refunded > Number(intent.amount)) {
          return {
            status: 400,
            body: {
              error: { type: "invalid_request_error", message: "Refund amount is greater than the charge" },
            },
          };
        }
        const refund: StripeObject = {
          id: newId("re"),
          object: "refund",
          amount,
          payment_intent: intent.id,
          status: "succeeded",
          account,
        };
        refunds.push(refund);
        return { status: 200, body: refund };
      }
      if (method === "GET" && path === "/v1/payment_method_configurations") {
        if (!account) return missing("account");
        return {
          status: 200,
          body: { object: "list", data: [configOf(account)], has_more: false, url: path },
        };
      }
      if (method === "POST" && configId) {
        const config = account ? configOf(account) : undefined;
        if (!config || config.id !== configId) return missing("payment_method_configuration");
        for (const [name, change] of Object.entries(body)) {
          const entry = config[name] as
            | { available: boolean; display_preference: Record<string, unknown> }
            | undefined;
          const preference = (change as { display_preference?: { preference?: string } })?.display_preference
            ?.preference;
          if (!entry || (preference !== "on" && preference !== "off")) continue;
          entry.display_preference = {
            ...entry.display_preference,
            preference,
            value: entry.available ? preference : "off",
          };
        }
        return { status: 200, body: config };
      }
      return null;
    },
  };
}
