import { isKnownError } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_CATALOGUE } from "../../../server/src/features/payments/test-support.ts";
import { appsFor } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";

let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  gh = await startGatehouse();
  const project = await gh.createProject("Admin customers");
  await project.configure({
    ...TEST_CATALOGUE,
    "payments.items.api-calls": { displayName: "API calls", customerType: "custom" },
  });
  apps = appsFor(gh, project);
});
afterAll(() => gh?.close());

describe("AdminApp.changeItemQuantity", () => {
  it("changes any customer's item by a delta, notes it in the ledger, and refuses to go below zero unless allowed", async () => {
    const admin = apps.admin();
    const user = await admin.createUser({ displayName: "Quantities" });
    await admin.changeItemQuantity({
      userId: user.id,
      itemId: "credits",
      delta: 7,
      description: "Welcome gift",
    });
    expect((await admin.getItem({ userId: user.id, itemId: "credits" })).quantity).toBe(7);

    const refused = await admin.changeItemQuantity({ userId: user.id, itemId: "credits", delta: -10 }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isKnownError(refused, "ITEM_QUANTITY_INSUFFICIENT_AMOUNT")).toBe(true);
    expect((await admin.getItem({ userId: user.id, itemId: "credits" })).quantity).toBe(7);

    await admin.changeItemQuantity({ userId: user.id, itemId: "credits", delta: -10, allowNegative: true });
    expect((await admin.getItem({ userId: user.id, itemId: "credits" })).quantity).toBe(-3);

    await admin.changeItemQuantity({ customCustomerId: "org-1", itemId: "api-calls", delta: 2 });
    expect((await admin.getItem({ customCustomerId: "org-1", itemId: "api-calls" })).quantity).toBe(2);

    const { transactions } = await admin.listTransactions({ customerId: user.id });
    expect(transactions.map((transaction) => transaction.entries[0])).toEqual([
      expect.objectContaining({ item_id: "credits", quantity: -10 }),
      expect.objectContaining({ item_id: "credits", quantity: 7, description: "Welcome gift" }),
    ]);
  });
});

describe("AdminApp.cancelCustomerSubscription", () => {
  it("cancels a subscription of any user at the end of its period", async () => {
    const admin = apps.admin();
    const user = await admin.createUser({ displayName: "Subscriber" });
    await admin.grantProduct({ userId: user.id, productId: "starter" });
    const [held] = await admin.listProducts({ userId: user.id });
    expect(held!.subscription).toMatchObject({ cancelAtPeriodEnd: false, isCancelable: true });

    await admin.cancelCustomerSubscription({
      userId: user.id,
      productId: "starter",
      subscriptionId: held!.subscription!.subscriptionId ?? undefined,
    });
    const [cancelled] = await admin.listProducts({ userId: user.id });
    expect(cancelled!.subscription).toMatchObject({ cancelAtPeriodEnd: true, isCancelable: false });
  });

  it("are admin calls", () => {
    expect("changeItemQuantity" in apps.server()).toBe(false);
    expect("cancelCustomerSubscription" in apps.server()).toBe(false);
  });
});
