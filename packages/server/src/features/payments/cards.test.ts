/**
 * Saved cards and plan switches (PROTOCOL-EXTRA §2.3) against the local Stripe stand-in, sent as the reference SDK
 * sends them (`createPaymentMethodSetupIntent`, `setDefaultPaymentMethodFromSetupIntent`, `switchSubscription`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { expectKnownError, expectPlainError } from "../../testing/known-errors.ts";
import { emailsTo } from "../../testing/outbox.ts";
import type { StripeStandIn } from "../../testing/stripe-stand-in.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { paymentsApi, startStripeTestServer, TEST_CATALOGUE } from "./test-support.ts";

let stripe: StripeStandIn;
let server: TestServer;
let project: TestProject;
let api: ReturnType<typeof paymentsApi>;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ stripe, server, project, api, close } = await startStripeTestServer("Card Co"));
  await project.configure({ "payments.testMode": false });
  const setup = await api.call("admin", "POST", "/internal/payments/setup", {});
  expect(setup.status, setup.text).toBe(200);
});
afterAll(() => close?.());

/** A signed-in user and calls as that user's client, as the SDK's customer object makes them. */
async function customerUser() {
  const { user, accessToken } = await createSignedInUser(server, project.id);
  const asUser = (method: string, path: string, body?: unknown) =>
    api.call("client", method, path, body, { "x-stack-access-token": accessToken });
  return { user, asUser };
}

/** Saves a card for the user the way Stripe.js and the SDK do; the payment method id. */
async function saveCard(asUser: Awaited<ReturnType<typeof customerUser>>["asUser"], userId: string) {
  const intent = await asUser("POST", `/payments/payment-method/user/${userId}/setup-intent`, {});
  expect(intent.status, intent.text).toBe(200);
  const setupIntentId = intent.body.client_secret.split("_secret_")[0];
  const methodId = stripe.billing.confirmSetupIntent(setupIntentId);
  const set = await asUser("POST", `/payments/payment-method/user/${userId}/set-default`, {
    setup_intent_id: setupIntentId,
  });
  expect(set.status, set.text).toBe(200);
  return methodId;
}

const heldProducts = async (userId: string) =>
  (await api.call("server", "GET", `/payments/products/user/${userId}`)).body.items.map(
    (item: { id: string }) => item.id,
  );

describe("saving a card", () => {
  it("makes a card SetupIntent on the project's account, then makes its card the default", async () => {
    const { user, asUser } = await customerUser();
    const intent = await asUser("POST", `/payments/payment-method/user/${user.id}/setup-intent`, {});
    expect(intent.status, intent.text).toBe(200);
    const accountId = [...stripe.accounts.keys()][0]!;
    expect(intent.body).toEqual({
      client_secret: expect.stringMatching(/^seti_.+_secret_/),
      stripe_account_id: accountId,
    });
    const setupIntentId = intent.body.client_secret.split("_secret_")[0];
    const stored = stripe.billing.setupIntents.get(setupIntentId)!;
    expect(stored).toMatchObject({
      usage: "off_session",
      allowed_payment_method_types: ["card"],
      account: accountId,
    });

    const early = await asUser("POST", `/payments/payment-method/user/${user.id}/set-default`, {
      setup_intent_id: setupIntentId,
    });
    expectPlainError(
      early,
      400,
      "This setup intent has not succeeded (its status is requires_payment_method).",
    );

    const methodId = stripe.billing.confirmSetupIntent(setupIntentId, { brand: "mastercard", last4: "4444" });
    const set = await asUser("POST", `/payments/payment-method/user/${user.id}/set-default`, {
      setup_intent_id: setupIntentId,
    });
    const card = { id: methodId, brand: "mastercard", last4: "4444", exp_month: 12, exp_year: 2034 };
    expect([set.status, set.body]).toEqual([200, { success: true, default_payment_method: card }]);
    const billing = await asUser("GET", `/payments/billing/user/${user.id}`);
    expect(billing.body).toEqual({ has_customer: true, default_payment_method: card });
  });

  it("refuses another customer's intent, another user, and a project without Stripe", async () => {
    const first = await customerUser();
    const second = await customerUser();
    const intent = await first.asUser(
      "POST",
      `/payments/payment-method/user/${first.user.id}/setup-intent`,
      {},
    );
    const setupIntentId = intent.body.client_secret.split("_secret_")[0];
    stripe.billing.confirmSetupIntent(setupIntentId);
    await second.asUser("POST", `/payments/payment-method/user/${second.user.id}/setup-intent`, {});
    const notTheirs = "This setup intent does not belong to this customer.";
    expectPlainError(
      await second.asUser("POST", `/payments/payment-method/user/${second.user.id}/set-default`, {
        setup_intent_id: setupIntentId,
      }),
      403,
      notTheirs,
    );
    expectPlainError(
      await first.asUser("POST", `/payments/payment-method/user/${first.user.id}/set-default`, {
        setup_intent_id: "seti_unknown",
      }),
      403,
      notTheirs,
    );
    const otherUser = await first.asUser(
      "POST",
      `/payments/payment-method/user/${second.user.id}/setup-intent`,
      {},
    );
    expect(otherUser.status).toBe(403);
    expectKnownError(
      await api.call("server", "POST", "/payments/payment-method/custom/someone/setup-intent", {}),
      400,
      "SCHEMA_ERROR",
    );

    const unconnected = await server.createProject("No Stripe");
    const { user } = await createSignedInUser(server, unconnected.id);
    const answer = await server.request(`/api/v1/payments/payment-method/user/${user.id}/setup-intent`, {
      method: "POST",
      headers: unconnected.headers("server"),
      body: {},
    });
    expectPlainError(answer, 400, "This project has not connected a Stripe account yet.");
  });
});

describe("switching plans", () => {
  it("needs a default card, then moves a granted plan onto a new Stripe subscription", async () => {
    const { user, asUser } = await customerUser();
    const granted = await api.call("server", "POST", `/payments/products/user/${user.id}`, {
      product_id: "starter",
    });
    expect(granted.status, granted.text).toBe(200);
    const path = `/payments/products/user/${user.id}/switch`;
    expectKnownError(
      await asUser("POST", path, { from_product_id: "starter", to_product_id: "pro" }),
      400,
      "DEFAULT_PAYMENT_METHOD_REQUIRED",
      { customer_type: "user", customer_id: user.id },
    );

    const card = await saveCard(asUser, user.id);
    const before = stripe.subscriptions.size;
    const switched = await asUser("POST", path, { from_product_id: "starter", to_product_id: "pro" });
    expect([switched.status, switched.body]).toEqual([200, { success: true }]);
    await stripe.settled();
    expect(stripe.subscriptions.size).toBe(before + 1);
    const subscription = [...stripe.subscriptions.values()].at(-1)! as Record<string, any>;
    expect(subscription.default_payment_method).toBe(card);
    expect(subscription.items.data[0].price).toMatchObject({
      unit_amount: 2900,
      currency: "usd",
      recurring: { interval: "month", interval_count: 1 },
    });
    expect(await heldProducts(user.id)).toEqual(["pro"]);
    expect(await api.quantity(`user/${user.id}`, "credits")).toBe(1000);

    // Back again: the same Stripe subscription changes price in place, and Stripe's news leaves one plan live.
    const back = await asUser("POST", path, {
      from_product_id: "pro",
      to_product_id: "starter",
      price_id: "monthly",
    });
    expect(back.status, back.text).toBe(200);
    expect(stripe.subscriptions.size).toBe(before + 1);
    expect((subscription.items.data[0].price as { unit_amount: number }).unit_amount).toBe(900);
    await stripe.settled();
    expect(stripe.events.at(-1)).toMatchObject({
      event: { type: "customer.subscription.updated" },
      status: 200,
    });
    expect(await heldProducts(user.id)).toEqual(["starter"]);
  });

  it("keeps telling the customer about a switched subscription's invoices", async () => {
    const email = "switcher@card.example";
    const { user, accessToken } = await createSignedInUser(server, project.id, {
      primaryEmail: email,
      primaryEmailVerified: true,
    });
    const asUser = (method: string, path: string, body?: unknown) =>
      api.call("client", method, path, body, { "x-stack-access-token": accessToken });
    await api.call("server", "POST", `/payments/products/user/${user.id}`, { product_id: "starter" });
    await saveCard(asUser, user.id);
    const switched = await asUser("POST", `/payments/products/user/${user.id}/switch`, {
      from_product_id: "starter",
      to_product_id: "pro",
    });
    expect(switched.status, switched.text).toBe(200);
    await stripe.settled();
    // The switch cleared the purchase code from the subscription's metadata: the invoice is matched by its id.
    const switchedSubscription = [...stripe.subscriptions.values()].at(-1)! as { id: string };
    await stripe.failRenewal(switchedSubscription.id);
    const [notice] = await emailsTo(server, project.id, email);
    expect(notice?.subject).toBe("Payment failed for Card Co");
    expect(notice?.text).toContain("for Pro");
  });

  it("answers the protocol's refusals", async () => {
    const { user, asUser } = await customerUser();
    const path = `/payments/products/user/${user.id}/switch`;
    await api.call("server", "POST", `/payments/products/user/${user.id}`, { product_id: "starter" });
    expectPlainError(
      await asUser("POST", path, { from_product_id: "starter", to_product_id: "starter" }),
      400,
      "The customer already has this product; choose another product to switch to.",
    );
    expectKnownError(
      await asUser("POST", path, { from_product_id: "starter", to_product_id: "nope" }),
      400,
      "PRODUCT_DOES_NOT_EXIST",
    );
    expectPlainError(
      await asUser("POST", path, { from_product_id: "starter", to_product_id: "lifetime" }),
      400,
      "Both products must be in the same product line.",
    );
    expectPlainError(
      await asUser("POST", path, { from_product_id: "pro", to_product_id: "starter" }),
      400,
      "The customer has no active subscription to this product.",
    );
    expectPlainError(
      await asUser("POST", path, { from_product_id: "starter", to_product_id: "pro", price_id: "yearly" }),
      400,
      'The product has no price "yearly".',
    );
    // A server-only price is not the client's to pick, and a price without an interval cannot be switched to.
    expectPlainError(
      await asUser("POST", path, { from_product_id: "starter", to_product_id: "pro", price_id: "internal" }),
      400,
      'The product has no price "internal".',
    );
    const serverOnly = await api.call("server", "POST", path, {
      from_product_id: "starter",
      to_product_id: "pro",
      price_id: "internal",
    });
    expectPlainError(serverOnly, 400, "Switching needs a price with an interval and a USD amount.");

    await project.configure({ "payments.blockNewPurchases": true });
    try {
      expectKnownError(
        await asUser("POST", path, { from_product_id: "starter", to_product_id: "pro" }),
        403,
        "NEW_PURCHASES_BLOCKED",
      );
    } finally {
      await project.configure({ "payments.blockNewPurchases": false });
    }
  });

  it("switches without Stripe in test mode", async () => {
    const shop = await server.createProject("Test-mode shop");
    await shop.configure(TEST_CATALOGUE);
    const shopApi = paymentsApi(server, shop);
    const { user, accessToken } = await createSignedInUser(server, shop.id);
    await shopApi.call("server", "POST", `/payments/products/user/${user.id}`, { product_id: "starter" });
    const requests = stripe.apiRequests.length;
    const switched = await shopApi.call(
      "client",
      "POST",
      `/payments/products/user/${user.id}/switch`,
      { from_product_id: "starter", to_product_id: "pro" },
      { "x-stack-access-token": accessToken },
    );
    expect([switched.status, switched.body]).toEqual([200, { success: true }]);
    expect(stripe.apiRequests.length).toBe(requests);
    const held = await shopApi.call("server", "GET", `/payments/products/user/${user.id}`);
    expect(held.body.items.map((item: { id: string }) => item.id)).toEqual(["pro"]);
  });
});

describe("payment method configurations", () => {
  it("lists the account's methods and turns them on and off", async () => {
    const read = await api.call("admin", "GET", "/internal/payments/method-configs");
    expect(read.status, read.text).toBe(200);
    expect(read.body.config_id).toMatch(/^pmc_/);
    expect(read.body.methods).toEqual([
      { id: "card", name: "Cards", enabled: true, available: true, overridable: true },
      { id: "apple_pay", name: "Apple Pay", enabled: true, available: true, overridable: true },
      { id: "google_pay", name: "Google Pay", enabled: true, available: true, overridable: true },
      { id: "link", name: "Link", enabled: false, available: true, overridable: true },
      { id: "klarna", name: "Klarna", enabled: false, available: false, overridable: true },
    ]);

    const patched = await api.call("admin", "PATCH", "/internal/payments/method-configs", {
      config_id: read.body.config_id,
      updates: { link: "on", apple_pay: "off" },
    });
    expect([patched.status, patched.body]).toEqual([200, { success: true }]);
    const after = await api.call("admin", "GET", "/internal/payments/method-configs");
    const enabled = Object.fromEntries(
      after.body.methods.map((method: { id: string; enabled: boolean }) => [method.id, method.enabled]),
    );
    expect(enabled).toEqual({ card: true, apple_pay: false, google_pay: true, link: true, klarna: false });

    expectPlainError(
      await api.call("admin", "PATCH", "/internal/payments/method-configs", {
        config_id: "pmc_someone_else",
        updates: { card: "off" },
      }),
      400,
      "This is not the account's payment method configuration.",
    );
    expectKnownError(
      await api.call("admin", "PATCH", "/internal/payments/method-configs", {
        config_id: read.body.config_id,
        updates: { card: "maybe" },
      }),
      400,
      "SCHEMA_ERROR",
    );
    expectKnownError(
      await api.call("server", "GET", "/internal/payments/method-configs"),
      401,
      "INSUFFICIENT_ACCESS_TYPE",
    );
    const unconnected = await server.createProject("No Stripe methods");
    const answer = await server.request("/api/v1/internal/payments/method-configs", {
      headers: unconnected.headers("admin"),
    });
    expectPlainError(answer, 400, "This project has not connected a Stripe account yet.");
  });
});
