import { describe, expect, it } from "vitest";
import { renderConfig } from "./render.ts";
import { problems, rendered } from "./test-support.ts";

const catalogue = {
  productLines: { plans: { displayName: "Plans", customerType: "team" } },
  items: {
    seats: { displayName: "Seats", customerType: "team" },
    credits: {},
  },
  products: {
    free: { customerType: "team", productLineId: "plans", prices: "include-by-default" },
    pro: {
      displayName: "Pro",
      customerType: "team",
      productLineId: "plans",
      prices: {
        monthly: { USD: "29.99", JPY: "4000", interval: [1, "month"], freeTrial: [14, "day"] },
        yearly: { EUR: "299", interval: [1, "year"], serverOnly: true },
      },
      includedItems: { seats: { quantity: 5, repeat: [1, "month"], expires: "when-purchase-expires" } },
    },
    "extra-seats": {
      customerType: "team",
      isAddOnTo: { pro: true },
      stackable: true,
      prices: { once: { USD: "5" } },
      includedItems: { seats: { quantity: 1 } },
    },
    credits_pack: { prices: { once: { USD: "0" } }, includedItems: { credits: {} } },
  },
};

describe("payments config", () => {
  it("renders products, prices, items and product lines with their defaults", () => {
    const { payments } = rendered(renderConfig({ environment: { payments: catalogue } }));
    expect(payments.blockNewPurchases).toBe(false);
    expect(payments.testMode).toBe(true);
    expect(payments.items).toEqual({
      seats: { displayName: "Seats", customerType: "team" },
      credits: { displayName: "credits", customerType: "user" },
    });
    expect(payments.products.free).toEqual({
      displayName: "free",
      customerType: "team",
      productLineId: "plans",
      isAddOnTo: false,
      serverOnly: false,
      stackable: false,
      prices: "include-by-default",
      includedItems: {},
    });
    expect(payments.products.pro!.prices).toEqual({
      monthly: {
        USD: "29.99",
        JPY: "4000",
        interval: [1, "month"],
        freeTrial: [14, "day"],
        serverOnly: false,
      },
      yearly: { EUR: "299", interval: [1, "year"], serverOnly: true },
    });
    expect(payments.products.credits_pack!.includedItems).toEqual({
      credits: { quantity: 0, repeat: "never", expires: "when-repeated" },
    });
    expect(payments.products["extra-seats"]!.isAddOnTo).toEqual({ pro: true });
  });

  it("takes entries from several levels and dot-notation keys", () => {
    const { payments } = rendered(
      renderConfig({
        project: { "payments.items.credits": { displayName: "Credits" } },
        environment: {
          "payments.testMode": false,
          "payments.products.starter.prices.monthly": { USD: "9", interval: [1, "month"] },
          "payments.products.starter.includedItems.credits.quantity": 100,
        },
      }),
    );
    expect(payments.testMode).toBe(false);
    expect(payments.products.starter).toMatchObject({
      displayName: "starter",
      customerType: "user",
      prices: { monthly: { USD: "9", interval: [1, "month"] } },
      includedItems: { credits: { quantity: 100 } },
    });
  });

  it.each([
    [{ items: { "-bad": {} } }, 'payments.items: invalid id "-bad"'],
    [{ items: { ["x".repeat(64)]: {} } }, "at most 63 characters"],
    [
      { items: { credits: { customerType: "org" } } },
      'payments.items.credits.customerType: must be one of "user", "team", "custom"',
    ],
    [{ items: { credits: { quantity: 1 } } }, "payments.items.credits.quantity: unknown key"],
    [
      { products: { p: { prices: { m: { interval: [1, "month"] } } } } },
      "payments.products.p.prices.m: a price needs an amount in at least one currency",
    ],
    [
      { products: { p: { prices: { m: { USD: 29 } } } } },
      "payments.products.p.prices.m.USD: expected a string, but got the number 29",
    ],
    [
      { products: { p: { prices: { m: { USD: "029" } } } } },
      "payments.products.p.prices.m.USD: must be an amount as a string without leading zeros",
    ],
    [{ products: { p: { prices: { m: { USD: "1.999" } } } } }, "with at most 2 decimals"],
    [{ products: { p: { prices: { m: { JPY: "10.5" } } } } }, "JPY has no decimals"],
    [{ products: { p: { prices: { m: { XYZ: "1" } } } } }, "payments.products.p.prices.m.XYZ: unknown key"],
    [
      { products: { p: { prices: { m: { USD: "1", interval: [1, "fortnight"] } } } } },
      "payments.products.p.prices.m.interval.1",
    ],
    [
      { products: { p: { prices: { m: { USD: "1", interval: [-1, "day"] } } } } },
      "payments.products.p.prices.m.interval.0: must be at least 0",
    ],
    [
      { products: { p: { prices: { m: { USD: "1", interval: "monthly" } } } } },
      'payments.products.p.prices.m.interval: expected an array of fixed length, but got the string "monthly"',
    ],
    [
      { products: { p: { includedItems: { nope: {} } } } },
      'payments.products.p.includedItems.nope: item "nope" is not defined under payments.items',
    ],
    [
      { items: { seats: { customerType: "team" } }, products: { p: { includedItems: { seats: {} } } } },
      'item "seats" is for team customers, but this product is for user customers',
    ],
    [
      { products: { p: { productLineId: "plans" } } },
      'payments.products.p.productLineId: product line "plans" is not defined',
    ],
    [
      { productLines: { plans: { customerType: "team" } }, products: { p: { productLineId: "plans" } } },
      'product line "plans" is for team customers, but this product is for user customers',
    ],
    [{ productLines: { plans: {} } }, "payments.productLines.plans.customerType: is required"],
    [
      { products: { p: { isAddOnTo: { base: true } } } },
      'payments.products.p.isAddOnTo.base: product "base" is not defined',
    ],
    [
      { products: { p: { includedItems: { c: { quantity: 1.5 } } } }, items: { c: {} } },
      "quantity: expected an integer",
    ],
    [{ blockNewPurchases: "yes" }, "payments.blockNewPurchases: expected true or false"],
    [{ stripe: {} }, "payments.stripe: unknown key"],
  ])("refuses %j with a message naming the key", (payments, expected) => {
    const found = problems(renderConfig({ environment: { payments } }));
    expect(found.join("\n").replaceAll(" (from the environment override)", "")).toContain(expected);
  });

  it("reads legacy names as the current ones", () => {
    const { payments } = rendered(
      renderConfig({
        project: {
          payments: {
            stripeAccountId: "acct_123",
            stripeAccountSetupComplete: true,
            groups: { plans: { displayName: "Plans" } },
            offers: {
              pro: {
                customerType: "team",
                groupId: "plans",
                prices: { m: { USD: "10", interval: [1, "month"] } },
              },
            },
            items: { seats: { customerType: "team", default: { quantity: 1 } } },
          },
        },
        environment: { "payments.catalogs.addons": { displayName: "Add-ons" } },
      }),
    );
    expect(payments.products.pro).toMatchObject({ productLineId: "plans", customerType: "team" });
    // A group's customer type is its products'; a line with none is for users.
    expect(payments.productLines).toEqual({
      plans: { displayName: "Plans", customerType: "team" },
      addons: { displayName: "Add-ons", customerType: "user" },
    });
    expect(payments.items.seats).toEqual({ displayName: "seats", customerType: "team" });
    expect(payments).not.toHaveProperty("stripeAccountId");
  });

  it("removes an entry set to null at a higher level", () => {
    const { payments } = rendered(
      renderConfig({
        project: { payments: catalogue },
        environment: { "payments.products.credits_pack": null },
      }),
    );
    expect(Object.keys(payments.products).sort()).toEqual(["extra-seats", "free", "pro"]);
  });
});
