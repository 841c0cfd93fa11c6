/**
 * `POST /internal/payments/transactions/refund` (PROTOCOL-EXTRA §2.5) against the local Stripe stand-in, sent as the
 * reference's admin SDK sends it (`refundTransaction`), and the refund as the transaction list shows it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { expectKnownError, expectPlainError } from "../../testing/known-errors.ts";
import type { StripeStandIn } from "../../testing/stripe-stand-in.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { paymentsApi, startStripeTestServer, stripeCheckouts, TEST_CATALOGUE } from "./test-support.ts";

let stripe: StripeStandIn;
let server: TestServer;
let project: TestProject;
let api: ReturnType<typeof paymentsApi>;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ stripe, server, project, api, close } = await startStripeTestServer("Refund Co"));
  const setup = await api.call("admin", "POST", "/internal/payments/setup", {});
  // Stripe's onboarding, finished: the account can take payments.
  expect((await fetch(setup.body.url, { redirect: "manual" })).status).toBe(303);
  await project.configure({ "payments.testMode": false });
});
afterAll(() => close?.());

/** A user who paid for the product through Checkout, and the purchase's transaction. */
async function paidPurchase(productId: string, priceId: string, quantity = 1) {
  const { user } = await createSignedInUser(server, project.id);
  const { sessionId } = await stripeCheckouts(server, api).checkout(user.id, productId, priceId, quantity);
  await stripe.pay(sessionId);
  await stripe.settled();
  const listed = await api.call("admin", "GET", `/internal/payments/transactions?customer_id=${user.id}`);
  const [transaction] = listed.body.transactions;
  expect(transaction.entries[0]).toMatchObject({ type: "product_grant", product_id: productId });
  return { user, transaction, session: stripe.sessions.get(sessionId)! };
}

const refund = (body: unknown) => api.call("admin", "POST", "/internal/payments/transactions/refund", body);
const held = async (userId: string) =>
  (await api.call("server", "GET", `/payments/products/user/${userId}`)).body.items.map(
    (item: { id: string }) => item.id,
  );

describe("refunding a purchase", () => {
  it("gives a one-time purchase's money back at Stripe and takes the product back, once", async () => {
    const { user, transaction, session } = await paidPurchase("lifetime", "once");
    expect(await held(user.id)).toEqual(["lifetime"]);
    const body = {
      type: "one-time-purchase",
      id: transaction.id,
      refund_entries: [{ entry_index: 0, quantity: 1, amount_usd: "99" }],
    };
    const answer = await refund(body);
    expect([answer.status, answer.body]).toEqual([200, { success: true }]);
    expect(stripe.billing.refunds.at(-1)).toMatchObject({
      payment_intent: session.payment_intent,
      amount: 9900,
    });
    expect(await held(user.id)).toEqual([]);

    const listed = await api.call("admin", "GET", `/internal/payments/transactions?customer_id=${user.id}`);
    const [refundTransaction, purchase] = listed.body.transactions;
    expect(refundTransaction).toMatchObject({
      type: null,
      test_mode: false,
      adjusted_by: [],
      entries: [
        {
          type: "money_transfer",
          customer_type: "user",
          customer_id: user.id,
          charged_amount: { USD: "-99.00" },
          net_amount: { USD: "-99.00" },
          adjusted_transaction_id: transaction.id,
          adjusted_entry_index: 0,
        },
        {
          type: "product_revocation",
          quantity: 1,
          adjusted_transaction_id: transaction.id,
          adjusted_entry_index: 0,
        },
      ],
    });
    expect(purchase.id).toBe(transaction.id);
    expect(purchase.adjusted_by).toEqual([
      { transaction_id: refundTransaction.id, entry_index: 0 },
      { transaction_id: refundTransaction.id, entry_index: 1 },
    ]);
    // The refund is listed only without a type filter, as the protocol's types have none for it.
    const purchasesOnly = await api.call(
      "admin",
      "GET",
      `/internal/payments/transactions?customer_id=${user.id}&type=purchase`,
    );
    expect(purchasesOnly.body.transactions.map((each: { id: string }) => each.id)).toEqual([transaction.id]);

    expectKnownError(await refund(body), 400, "ONE_TIME_PURCHASE_ALREADY_REFUNDED", {
      one_time_purchase_id: transaction.id,
    });
    expect(
      stripe.billing.refunds.filter((each) => each.payment_intent === session.payment_intent),
    ).toHaveLength(1);
  });

  it("gives part of a subscription's first payment back and keeps the subscription", async () => {
    const { user, transaction, session } = await paidPurchase("pro", "monthly");
    const answer = await refund({
      type: "subscription",
      id: transaction.id,
      refund_entries: [{ entry_index: 0, quantity: 0, amount_usd: "10.50" }],
    });
    expect([answer.status, answer.body]).toEqual([200, { success: true }]);
    const invoice = stripe.apiRequests.filter((line) => line === "GET /v1/invoices");
    expect(invoice.length).toBeGreaterThan(0);
    expect(stripe.billing.refunds.at(-1)).toMatchObject({ amount: 1050 });
    const paidWith = stripe.billing.refunds.at(-1)!.payment_intent as string;
    expect(paidWith).toMatch(/^pi_/);
    expect(stripe.subscriptions.get(session.subscription as string)!.cancel_at_period_end).toBe(false);
    expect(await held(user.id)).toEqual(["pro"]);
    expectKnownError(
      await refund({
        type: "subscription",
        id: transaction.id,
        refund_entries: [{ entry_index: 0, quantity: 0, amount_usd: "1" }],
      }),
      400,
      "SUBSCRIPTION_ALREADY_REFUNDED",
      { subscription_id: transaction.id },
    );
  });

  it("answers the protocol's refusals", async () => {
    const { transaction } = await paidPurchase("credit-pack", "once", 2);
    const entries = (entry: Record<string, unknown>) => ({
      type: "one-time-purchase",
      id: transaction.id,
      refund_entries: [{ entry_index: 0, quantity: 0, amount_usd: "1", ...entry }],
    });
    expectKnownError(
      await refund({ ...entries({}), id: "00000000-0000-4000-8000-000000000000" }),
      404,
      "ONE_TIME_PURCHASE_NOT_FOUND",
    );
    expectKnownError(
      await refund({ ...entries({}), type: "subscription" }),
      404,
      "SUBSCRIPTION_INVOICE_NOT_FOUND",
      {
        subscription_invoice_id: transaction.id,
      },
    );
    expectKnownError(await refund(entries({ entry_index: 1 })), 400, "SCHEMA_ERROR");
    expectKnownError(await refund(entries({ quantity: 3 })), 400, "SCHEMA_ERROR");
    expectKnownError(await refund(entries({ amount_usd: "10.01" })), 400, "SCHEMA_ERROR");
    expectKnownError(await refund(entries({ amount_usd: "-1" })), 400, "SCHEMA_ERROR");
    expectKnownError(await refund(entries({ amount_usd: "0" })), 400, "SCHEMA_ERROR");
    expectKnownError(
      await refund({
        ...entries({}),
        refund_entries: [
          { entry_index: 0, quantity: 0, amount_usd: "1" },
          { entry_index: 0, quantity: 0, amount_usd: "1" },
        ],
      }),
      400,
      "SCHEMA_ERROR",
    );
    expectPlainError(
      await refund(entries({ quantity: 1 })),
      400,
      "A refund takes back all of the purchase's quantity or none of it.",
    );

    // A server's grant was never paid; a test-mode purchase never reached Stripe.
    const { user } = await createSignedInUser(server, project.id);
    await api.call("server", "POST", `/payments/products/user/${user.id}`, { product_id: "lifetime" });
    const grants = await api.call("admin", "GET", `/internal/payments/transactions?customer_id=${user.id}`);
    expectPlainError(
      await refund({
        type: "one-time-purchase",
        id: grants.body.transactions[0].id,
        refund_entries: [{ entry_index: 0, quantity: 1, amount_usd: "0" }],
      }),
      400,
      "This purchase was not paid through Stripe, so there is no payment to refund.",
    );
    const shop = await server.createProject("Test-mode refunds");
    await shop.configure(TEST_CATALOGUE);
    const shopApi = paymentsApi(server, shop);
    const buyer = await createSignedInUser(server, shop.id);
    const { fullCode } = await shopApi.purchaseUrl({
      customer_type: "user",
      customer_id: buyer.user.id,
      product_id: "lifetime",
    });
    expect((await shopApi.buy(fullCode, "once")).status).toBe(200);
    const bought = await shopApi.call(
      "admin",
      "GET",
      `/internal/payments/transactions?customer_id=${buyer.user.id}`,
    );
    // Another project's purchase is not found, whatever its id.
    expectKnownError(
      await shopApi.call("admin", "POST", "/internal/payments/transactions/refund", entries({})),
      404,
      "ONE_TIME_PURCHASE_NOT_FOUND",
    );
    expectKnownError(
      await shopApi.call("admin", "POST", "/internal/payments/transactions/refund", {
        type: "one-time-purchase",
        id: bought.body.transactions[0].id,
        refund_entries: [{ entry_index: 0, quantity: 1, amount_usd: "99" }],
      }),
      400,
      "TEST_MODE_PURCHASE_NON_REFUNDABLE",
    );
  });
});
