/**
 * Stripe for real (PROTOCOL-EXTRA §2.4-2.6), against a local stand-in of Stripe's API (testing/stripe-stand-in.ts)
 * reached through the official `stripe` package: connecting the account, paying a purchase code with Checkout,
 * signed webhooks that grant once however often they are replayed and whatever their order, cancellation at Stripe,
 * refunds, billing and invoices.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { emailsTo } from "../../testing/outbox.ts";
import type { StripeStandIn } from "../../testing/stripe-stand-in.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { accountChargesEnabled } from "./charges-enabled.ts";
import { paymentsApi, startStripeTestServer, stripeCheckouts, TEST_CATALOGUE } from "./test-support.ts";

let stripe: StripeStandIn;
let server: TestServer;
let project: TestProject;
let api: ReturnType<typeof paymentsApi>;
let accountId: string;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ stripe, server, project, api, close } = await startStripeTestServer("Stripe Co"));
});
afterAll(() => close?.());

const checkouts = () => stripeCheckouts(server, api);
const purchaseCode = (userId: string, productId: string) => checkouts().purchaseCode(userId, productId);
const startCheckout = (fullCode: string, priceId: string, quantity = 1) =>
  checkouts().startCheckout(fullCode, priceId, quantity);
const checkout = (userId: string, productId: string, priceId: string, quantity = 1) =>
  checkouts().checkout(userId, productId, priceId, quantity);

describe("connecting Stripe", () => {
  it("creates the connected account, onboards it through Stripe's link, and reports its state", async () => {
    const before = await api.call("admin", "GET", "/internal/payments/stripe/account-info");
    expect([before.status, before.body.code]).toEqual([404, "STRIPE_ACCOUNT_INFO_NOT_FOUND"]);
    const noWidgets = await api.call(
      "admin",
      "POST",
      "/internal/payments/stripe-widgets/account-session",
      {},
    );
    expect(noWidgets.status).toBe(400);

    const setup = await api.call("admin", "POST", "/internal/payments/setup", {});
    expect(setup.status, setup.text).toBe(200);
    const again = await api.call("admin", "POST", "/internal/payments/setup", {});
    expect(stripe.accounts.size).toBe(1);
    expect(again.body.url).toContain("/connect/onboarding/");
    accountId = [...stripe.accounts.keys()][0]!;
    expect(stripe.accounts.get(accountId)!.metadata).toEqual({ tenancyId: project.id });

    const onboarding = await fetch(setup.body.url, { redirect: "manual" });
    expect(onboarding.status).toBe(303);
    expect(onboarding.headers.get("location")).toBe(`http://localhost:8102/projects/${project.id}/payments`);
    const info = await api.call("admin", "GET", "/internal/payments/stripe/account-info");
    expect(info.body).toEqual({
      account_id: accountId,
      charges_enabled: true,
      details_submitted: true,
      payouts_enabled: true,
    });
    const widgets = await api.call("admin", "POST", "/internal/payments/stripe-widgets/account-session", {});
    expect(widgets.body.client_secret).toMatch(/^acs_secret_/);
    await project.configure({ "payments.testMode": false });
  });
});

describe("the purchase page and Stripe's API", () => {
  const accountReads = () =>
    stripe.apiRequests.filter((line) => line === `GET /v1/accounts/${accountId}`).length;

  it("asks Stripe whether the account can take payments at most once a minute, and keeps what Stripe says", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const fullCode = await purchaseCode(user.id, "pro");
    const load = () =>
      server.request("/api/v1/payments/purchases/validate-code", {
        method: "POST",
        body: { full_code: fullCode },
      });
    const before = accountReads();
    for (let page = 0; page < 5; page++) {
      const loaded = await load();
      expect(loaded.status, loaded.text).toBe(200);
      expect(loaded.body).toMatchObject({ charges_enabled: true, test_mode: false });
    }
    // The owner's account-info read just before told this server already; five loads asked Stripe at most once.
    expect(accountReads() - before).toBeLessThanOrEqual(1);

    // Stripe says the account can no longer take payments: the page follows without asking.
    const account = stripe.accounts.get(accountId)!;
    expect(await stripe.send("account.updated", accountId, { ...account, charges_enabled: false })).toBe(200);
    const reads = accountReads();
    expect((await load()).body.charges_enabled).toBe(false);
    expect(accountReads()).toBe(reads);
    await stripe.send("account.updated", accountId, { ...account, charges_enabled: true });
  });

  it("reads again once a minute has passed, and keeps no failed read", async () => {
    let clock = Date.now() + 10 * 60_000;
    const now = () => clock;
    const reads = accountReads();
    expect(await accountChargesEnabled(server.deps.env, accountId, now)).toBe(true);
    expect(await accountChargesEnabled(server.deps.env, accountId, now)).toBe(true);
    expect(accountReads()).toBe(reads + 1);
    clock += 61_000;
    expect(await accountChargesEnabled(server.deps.env, accountId, now)).toBe(true);
    expect(accountReads()).toBe(reads + 2);

    // An account Stripe does not know: no payments, no 500, and asked again next time.
    const missing = () =>
      stripe.apiRequests.filter((line) => line === "GET /v1/accounts/acct_missing").length;
    expect(await accountChargesEnabled(server.deps.env, "acct_missing", now)).toBe(false);
    expect(await accountChargesEnabled(server.deps.env, "acct_missing", now)).toBe(false);
    expect(missing()).toBeGreaterThanOrEqual(2);
  });
});

describe("when Stripe fails", () => {
  it("answers 502 naming Stripe: its words to the owner, only that payments are unavailable to the public", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const fullCode = await purchaseCode(user.id, "pro");
    stripe.refuseRequests("No such account: 'acct_gone'");
    try {
      const info = await api.call("admin", "GET", "/internal/payments/stripe/account-info");
      expect(info.status).toBe(502);
      expect(info.text).toContain("Stripe did not complete the request: No such account: 'acct_gone'");

      const started = await startCheckout(fullCode, "monthly");
      expect(started.status).toBe(502);
      expect(started.text).toContain("Payments are unavailable right now");
      expect(started.text).not.toContain("acct_gone");
    } finally {
      stripe.refuseRequests(null);
    }
    // Nothing was used up: the same code checks out once Stripe answers again.
    const retried = await startCheckout(fullCode, "monthly");
    expect(retried.status, retried.text).toBe(200);
  });
});

describe("paying with Stripe Checkout", () => {
  it("grants a subscription once when Stripe's events are replayed, and keeps it ended whatever the order", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const customer = `user/${user.id}`;
    const { fullCode, sessionId, url } = await checkout(user.id, "pro", "monthly");
    expect(url.startsWith(stripe.url)).toBe(true);
    const validated = await server.request("/api/v1/payments/purchases/validate-code", {
      method: "POST",
      body: { full_code: fullCode },
    });
    expect(validated.body.code).toBe("VERIFICATION_CODE_ALREADY_USED");
    expect(await api.quantity(customer, "credits")).toBe(0);

    await stripe.pay(sessionId);
    const sent = stripe.events.filter(
      (each) => each.event.data.object.id === sessionId || each.event.account === accountId,
    );
    expect(sent.every((each) => each.status === 200)).toBe(true);
    expect(await api.quantity(customer, "credits")).toBe(1000);
    const completed = stripe.events.find(
      (each) => each.event.type === "checkout.session.completed" && each.event.data.object.id === sessionId,
    )!;
    expect(await stripe.replay(completed.event.id)).toBe(200);
    expect(await stripe.replay(completed.event.id)).toBe(200);
    expect(await api.quantity(customer, "credits")).toBe(1000);
    const [held] = (await api.call("server", "GET", `/payments/products/${customer}`)).body.items;
    expect(held).toMatchObject({ id: "pro", quantity: 1, subscription: { cancel_at_period_end: false } });

    // Stripe ends the subscription; an older event delivered late does not bring it back.
    const subscriptionId = stripe.sessions.get(sessionId)!.subscription as string;
    const created = stripe.events.find(
      (each) =>
        each.event.type === "customer.subscription.created" && each.event.data.object.id === subscriptionId,
    )!;
    await stripe.endSubscription(subscriptionId);
    expect(await api.quantity(customer, "credits")).toBe(0);
    expect(await stripe.replay(created.event.id)).toBe(200);
    expect(await stripe.replay(completed.event.id)).toBe(200);
    expect(await api.quantity(customer, "credits")).toBe(0);
    expect((await api.call("server", "GET", `/payments/products/${customer}`)).body.items).toEqual([]);
    const purchases = await api.call(
      "admin",
      "GET",
      `/internal/payments/transactions?customer_id=${user.id}&type=purchase`,
    );
    expect(purchases.body.transactions).toHaveLength(1);
    expect(purchases.body.transactions[0].test_mode).toBe(false);
  });

  it("cancels a Stripe subscription at Stripe, at the end of its period", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const { sessionId } = await checkout(user.id, "starter", "monthly");
    await stripe.pay(sessionId);
    const subscriptionId = stripe.sessions.get(sessionId)!.subscription as string;
    const cancelled = await api.call(
      "client",
      "DELETE",
      `/payments/products/user/${user.id}/starter`,
      undefined,
      {
        "x-stack-access-token": accessToken,
      },
    );
    expect(cancelled.status, cancelled.text).toBe(200);
    const atStripe = stripe.subscriptions.get(subscriptionId)!;
    expect(atStripe.cancel_at_period_end).toBe(true);
    const periodEnd = (atStripe.items as { data: Array<{ current_period_end: number }> }).data[0]!
      .current_period_end;
    const [held] = (await api.call("server", "GET", `/payments/products/user/${user.id}`)).body.items;
    expect(held.subscription).toMatchObject({
      cancel_at_period_end: true,
      current_period_end: new Date(periodEnd * 1000).toISOString(),
    });
    expect(await api.quantity(`user/${user.id}`, "credits")).toBe(100);
  });

  it("sells a one-time product, and a full refund takes it back", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const { sessionId } = await checkout(user.id, "credit-pack", "once", 2);
    await stripe.pay(sessionId);
    expect(await api.quantity(`user/${user.id}`, "credits")).toBe(100);
    const intent = stripe.sessions.get(sessionId)!.payment_intent as string;
    await stripe.refund(intent, accountId);
    expect(await api.quantity(`user/${user.id}`, "credits")).toBe(0);

    const billing = await api.call("client", "GET", `/payments/billing/user/${user.id}`, undefined, {
      "x-stack-access-token": accessToken,
    });
    expect(billing.body).toEqual({ has_customer: true, default_payment_method: null });
  });

  it("lists a subscriber's Stripe invoices", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const { sessionId } = await checkout(user.id, "pro", "monthly");
    await stripe.pay(sessionId);
    const invoices = await api.call("server", "GET", `/payments/invoices/user/${user.id}`);
    expect(invoices.body.items).toEqual([
      {
        created_at_millis: expect.any(Number),
        status: "paid",
        amount_total: 2900,
        hosted_invoice_url: expect.stringContaining(stripe.url),
      },
    ]);
  });

  it("emails a receipt once per payment, and a notice when a renewal cannot be collected", async () => {
    const email = "receipts@stripe.example";
    const { user } = await createSignedInUser(server, project.id, {
      primaryEmail: email,
      primaryEmailVerified: true,
    });
    const pack = await checkout(user.id, "credit-pack", "once", 2);
    await stripe.pay(pack.sessionId);
    const completed = stripe.events.find(
      (each) =>
        each.event.type === "checkout.session.completed" && each.event.data.object.id === pack.sessionId,
    )!;
    await stripe.replay(completed.event.id);
    let mail = await emailsTo(server, project.id, email);
    expect(mail.map((each) => each.subject)).toEqual(["Your receipt from Stripe Co"]);
    expect(mail[0]!.text).toContain("2 × Credit pack: USD 10.00");

    const plan = await checkout(user.id, "pro", "monthly");
    await stripe.pay(plan.sessionId);
    const paidInvoice = stripe.events.find((each) => each.event.type === "invoice.payment_succeeded")!;
    await stripe.replay(paidInvoice.event.id);
    mail = await emailsTo(server, project.id, email);
    expect(mail.map((each) => each.subject)).toEqual([
      "Your receipt from Stripe Co",
      "Your receipt from Stripe Co",
    ]);
    expect(mail[0]!.text).toContain("Pro: USD 29.00");
    expect(mail[0]!.html).toContain(`${stripe.url}/invoices/`);

    await stripe.failRenewal(stripe.sessions.get(plan.sessionId)!.subscription as string);
    mail = await emailsTo(server, project.id, email);
    expect(mail[0]!.subject).toBe("Payment failed for Stripe Co");
    expect(mail[0]!.text).toContain("USD 29.00 for Pro");
  });

  it("emails a team's receipts to its admins, not its other members", async () => {
    const admin = await createSignedInUser(server, project.id, {
      primaryEmail: "admin@team.example",
      primaryEmailVerified: true,
    });
    const member = await createSignedInUser(server, project.id, {
      primaryEmail: "member@team.example",
      primaryEmailVerified: true,
    });
    const team = await api.call("server", "POST", "/teams", {
      display_name: "Payers",
      creator_user_id: admin.user.id,
    });
    await api.call("server", "POST", `/team-memberships/${team.body.id}/${member.user.id}`, {});
    const { fullCode } = await api.purchaseUrl({
      customer_type: "team",
      customer_id: team.body.id,
      product_id: "team-plan",
    });
    const started = await server.request("/api/v1/payments/purchases/checkout-session", {
      method: "POST",
      body: { full_code: fullCode, price_id: "monthly" },
    });
    await stripe.pay(new URL(started.body.url).pathname.split("/").pop()!);
    expect(await api.quantity(`team/${team.body.id}`, "seats")).toBe(5);
    expect((await emailsTo(server, project.id, "admin@team.example")).map((each) => each.subject)).toEqual([
      "Your receipt from Stripe Co",
    ]);
    expect(await emailsTo(server, project.id, "member@team.example")).toEqual([]);
  });

  it("refuses checkouts that cannot be paid, before Stripe is asked", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const { fullCode } = await api.purchaseUrl({
      customer_type: "user",
      customer_id: user.id,
      product_id: "lifetime",
    });
    const sessionsBefore = stripe.sessions.size;
    const start = (body: Record<string, unknown>) =>
      server.request("/api/v1/payments/purchases/checkout-session", {
        method: "POST",
        body: { full_code: fullCode, ...body },
      });
    expect((await start({ price_id: "nope" })).status).toBe(400);
    expect((await start({ price_id: "once", quantity: 2 })).text).toMatch(/not stackable/);
    expect((await start({ price_id: "once", return_url: "https://evil.example/" })).body.code).toBe(
      "REDIRECT_URL_NOT_WHITELISTED",
    );
    expect(stripe.sessions.size).toBe(sessionsBefore);
    const testMode = await server.createProject("Test Mode Co");
    await testMode.configure(TEST_CATALOGUE);
    const other = await createSignedInUser(server, testMode.id);
    const { fullCode: testCode } = await paymentsApi(server, testMode).purchaseUrl({
      customer_type: "user",
      customer_id: other.user.id,
      product_id: "lifetime",
    });
    const inTestMode = await server.request("/api/v1/payments/purchases/checkout-session", {
      method: "POST",
      body: { full_code: testCode, price_id: "once" },
    });
    expect(inTestMode.status).toBe(400);
    expect(inTestMode.text).toMatch(/test mode/);
  });
});

describe("POST /integrations/stripe/webhooks", () => {
  const post = (body: string, signature?: string) =>
    server.request("/api/v1/integrations/stripe/webhooks", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(signature ? { "stripe-signature": signature } : {}),
      },
      body,
    });
  const event = (type: string, object: Record<string, unknown>) =>
    JSON.stringify({
      id: "evt_1",
      object: "event",
      type,
      account: accountId,
      created: 1,
      livemode: false,
      data: { object },
    });

  it("refuses a missing or wrong signature, and a body changed after signing", async () => {
    const body = event("checkout.session.completed", {
      id: "cs_forged",
      payment_status: "paid",
      metadata: {},
    });
    expect((await post(body)).status).toBe(400);
    expect((await post(body, stripe.sign(body, "whsec_wrong"))).status).toBe(400);
    expect((await post(`${body} `, stripe.sign(body))).status).toBe(400);
    expect((await post("not json", stripe.sign("not json"))).status).toBe(400);
  });

  it("acknowledges events it does not act on, and checkouts that are not Gatehouse's", async () => {
    for (const type of ["account.updated", "balance.available", "some.future.event"]) {
      const body = event(type, { id: "obj_1" });
      expect((await post(body, stripe.sign(body))).status, type).toBe(200);
    }
    const foreign = event("checkout.session.completed", {
      id: "cs_foreign",
      payment_status: "paid",
      metadata: { other: "x" },
    });
    expect((await post(foreign, stripe.sign(foreign))).body).toEqual({ received: true });
    const unknownAccount = JSON.stringify({ ...JSON.parse(foreign), account: "acct_unknown" });
    expect((await post(unknownAccount, stripe.sign(unknownAccount))).status).toBe(200);
  });
});
