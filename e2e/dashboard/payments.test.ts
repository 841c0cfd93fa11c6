import { type GatehouseAdminApp, gatehouseInternals, type ServerUser } from "@gatehouse/js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  ownerWithProject,
  screenshot,
  startDashboard,
} from "./test-support.ts";

/**
 * The Payments pages in the browser: an owner builds a catalogue (an item, a product line, products with prices in
 * two currencies and included items, the server's validation error shown beside the form), switches test mode and
 * blocking new purchases, looks a user up as a customer, grants and revokes credits by hand, grants a plan and
 * cancels it, makes a test purchase link and completes it on the purchase page, and reads the transactions,
 * filtered. Every change is read back through the API; every page is saved in light and dark.
 */
let env: DashboardEnv;
let page: Page;
let projectId: string;
let admin: () => Promise<GatehouseAdminApp>;
let customer: ServerUser;
const owner = "payments-owner@example.com";

const modal = () => page.getByRole("dialog");
const toast = (text: string) => page.locator('.toast[data-kind="success"]', { hasText: text }).first();

async function payments(): Promise<Record<string, any>> {
  const config = await (await (await admin()).getProject()).getConfig();
  return config.payments as Record<string, any>;
}

/** A payments route as the project's admin (the SDK has no payments methods yet). */
async function adminGet(path: string): Promise<any> {
  const app = await admin();
  return app[gatehouseInternals].context.call(path, { accessType: "admin", session: null });
}

const credits = async () =>
  (await adminGet(`/payments/items/user/${customer.id}/credits`)).quantity as number;

async function go(rest: string) {
  await page.goto(`${env.baseUrl}/projects/${encodeURIComponent(projectId)}/${rest}`);
  await page.locator(".page h1").first().waitFor();
  await page.locator('[data-testid="loading"]').first().waitFor({ state: "detached" });
}

async function quantityShown(itemId: string, expected: string) {
  await page.getByTestId(`quantity-${itemId}`).getByText(expected, { exact: true }).waitFor();
}

beforeAll(async () => {
  env = await startDashboard();
  page = await env.newPage();
  projectId = await ownerWithProject(env, page, owner, "Payments project");
  const api = await ownerApi(env, owner);
  admin = async () => adminAppOf(await api.project(projectId));
  customer = await (await admin()).createUser({
    primaryEmail: "casey@example.com",
    displayName: "Casey Customer",
  });
});
afterAll(() => env?.close());

describe("the Payments pages", () => {
  it("builds a catalogue in the forms, with the server's validation beside the form", async () => {
    await page.getByRole("link", { name: "Payments" }).click();
    await page.waitForURL(/\/projects\/[^/]+\/payments$/);
    await page.getByRole("heading", { name: "No products yet" }).waitFor();

    // An item, id proposed from its name.
    await page.getByRole("button", { name: "New item" }).first().click();
    await modal().locator('input[name="itemDisplayName"]').fill("Credits");
    expect(await modal().locator('input[name="itemId"]').inputValue()).toBe("credits");
    await modal().getByRole("button", { name: "Create item" }).click();
    await modal().waitFor({ state: "detached" });
    await page.getByTestId("payments-items-table").locator('tr[data-item-id="credits"]').waitFor();

    await page.getByRole("button", { name: "New product line" }).first().click();
    await modal().locator('input[name="lineDisplayName"]').fill("Plans");
    await modal().getByRole("button", { name: "Create product line" }).click();
    await modal().waitFor({ state: "detached" });
    await page.getByTestId("payments-lines-table").locator('tr[data-line-id="plans"]').waitFor();

    // A monthly plan with an amount the server refuses (three decimals), shown next to the form.
    await page.getByRole("button", { name: "New product" }).first().click();
    await modal().locator('input[name="productDisplayName"]').fill("Pro");
    await modal().locator('select[name="productLine"]').selectOption("plans");
    await modal().locator('input[name="price-0-id"]').fill("monthly");
    await modal().locator('select[name="price-0-billing"]').selectOption("month");
    await modal().locator('input[name="price-0-amount-0"]').fill("29.999");
    await modal().getByRole("button", { name: "Currency" }).click();
    await modal().locator('select[name="price-0-currency-1"]').selectOption("EUR");
    await modal().locator('input[name="price-0-amount-1"]').fill("27");
    await modal().getByRole("button", { name: "Include an item" }).click();
    await modal().locator('select[name="included-0-item"]').selectOption("credits");
    await modal().locator('input[name="included-0-quantity"]').fill("1000");
    await modal().locator('select[name="included-0-repeat"]').selectOption("month");
    await modal().locator('select[name="included-0-expires"]').selectOption("when-repeated");
    await modal().getByRole("button", { name: "Create product" }).click();
    const refusal = modal().getByTestId("payments-form-error");
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(
      /payments\.products\.pro\.prices\.monthly\.USD\b.*: must be an amount .*at most 2 decimals/,
    );
    await refusal.scrollIntoViewIfNeeded();
    await screenshot(page, "payments-product-form-error-light");
    expect((await payments()).products).toEqual({});

    await modal().locator('input[name="price-0-amount-0"]').fill("29.99");
    await modal().getByRole("button", { name: "Create product" }).click();
    await modal().waitFor({ state: "detached" });
    await page.getByTestId("payments-products-table").locator('tr[data-product-id="pro"]').waitFor();

    // A stackable one-time pack.
    await page.getByRole("button", { name: "New product" }).first().click();
    await modal().locator('input[name="productDisplayName"]').fill("Credit pack");
    await modal().locator('input[name="productStackable"]').check();
    await modal().locator('input[name="price-0-id"]').fill("once");
    await modal().locator('input[name="price-0-amount-0"]').fill("5");
    await modal().getByRole("button", { name: "Include an item" }).click();
    await modal().locator('input[name="included-0-quantity"]').fill("50");
    await screenshot(page, "payments-product-form-light");
    await modal().getByRole("button", { name: "Create product" }).click();
    await modal().waitFor({ state: "detached" });
    await page.getByTestId("payments-products-table").locator('tr[data-product-id="credit-pack"]').waitFor();

    const stored = await payments();
    expect(stored.items).toEqual({ credits: { displayName: "Credits", customerType: "user" } });
    expect(stored.productLines).toEqual({ plans: { displayName: "Plans", customerType: "user" } });
    expect(stored.products.pro).toMatchObject({
      displayName: "Pro",
      customerType: "user",
      productLineId: "plans",
      stackable: false,
      serverOnly: false,
      prices: { monthly: { USD: "29.99", EUR: "27", interval: [1, "month"], serverOnly: false } },
      includedItems: { credits: { quantity: 1000, repeat: [1, "month"], expires: "when-repeated" } },
    });
    expect(stored.products["credit-pack"]).toMatchObject({
      displayName: "Credit pack",
      stackable: true,
      prices: { once: { USD: "5", serverOnly: false } },
      includedItems: { credits: { quantity: 50, repeat: "never", expires: "never" } },
    });
    expect(stored.products["credit-pack"].productLineId).toBeUndefined();
    expect(stored.products["credit-pack"].prices.once.interval).toBeUndefined();
    const proRow = await page
      .getByTestId("payments-products-table")
      .locator('tr[data-product-id="pro"]')
      .textContent();
    expect(proRow).toContain("every month");
    expect(proRow).toContain("1000 × Credits");

    // Editing keeps what it does not show, and the item in use cannot be deleted (the server's words, in a toast).
    await page.getByRole("button", { name: "Edit Pro" }).click();
    expect(await modal().locator('input[name="productId"]').isDisabled()).toBe(true);
    expect(await modal().locator('input[name="price-0-amount-1"]').inputValue()).toBe("27");
    await modal().getByRole("button", { name: "Cancel" }).click();
    await modal().waitFor({ state: "detached" });
    await page.getByTestId("payments-items-table").getByRole("button", { name: "Delete" }).click();
    await modal().getByRole("button", { name: "Delete item" }).click();
    await page.locator('.toast[data-kind="error"]', { hasText: 'item "credits" is not defined' }).waitFor();
    await modal().getByRole("button", { name: "Cancel", exact: true }).click();
    await modal().waitFor({ state: "detached" });
    expect(Object.keys((await payments()).items)).toEqual(["credits"]);
  });

  it("turns test mode and blocking new purchases on and off", async () => {
    const testMode = page.getByRole("switch", { name: "Test mode" });
    const block = page.getByRole("switch", { name: "Block new purchases" });
    expect(await testMode.isChecked()).toBe(true);
    expect(await block.isChecked()).toBe(false);

    await testMode.click();
    await toast("Test mode off").waitFor();
    await page.getByTestId("payments-live-warning").waitFor();
    expect((await payments()).testMode).toBe(false);
    await testMode.click();
    await toast("Test mode on").waitFor();
    await page.getByTestId("payments-live-warning").waitFor({ state: "detached" });
    expect((await payments()).testMode).toBe(true);

    await block.click();
    await toast("New purchases blocked").waitFor();
    expect((await payments()).blockNewPurchases).toBe(true);
    await block.click();
    await toast("New purchases allowed").waitFor();
    expect((await payments()).blockNewPurchases).toBe(false);
  });

  it("grants and revokes a user's credits by hand, and grants and cancels a plan", async () => {
    await page.getByRole("navigation", { name: "Payments" }).getByRole("link", { name: "Customers" }).click();
    await page.waitForURL(/\/payments\/customers$/);
    await page.getByRole("heading", { name: "Choose a customer" }).waitFor();
    await page.locator('input[name="customerUser"]').fill("casey");
    await page.getByRole("option", { name: /Casey Customer/ }).click();
    await page.waitForURL((url) => url.searchParams.get("id") === customer.id);
    // The heading names the user once it has read them.
    await page
      .getByTestId("payments-customer")
      .getByRole("heading", { name: /Casey Customer/ })
      .waitFor();
    await quantityShown("credits", "0");

    await page.locator('input[name="adjustAmount"]').fill("25");
    await page.locator('input[name="adjustDescription"]').fill("Welcome bonus");
    await page.getByRole("button", { name: "Grant", exact: true }).click();
    await quantityShown("credits", "25");
    expect(await credits()).toBe(25);

    // Not below zero unless the owner says so.
    await page.locator('input[name="adjustAmount"]').fill("40");
    await page.getByRole("button", { name: "Revoke" }).click();
    expect(await page.getByTestId("payments-adjust-error").textContent()).toContain("has only 25 Credits");
    expect(await credits()).toBe(25);
    await page.locator('input[name="adjustAllowNegative"]').check();
    await page.getByRole("button", { name: "Revoke" }).click();
    await quantityShown("credits", "-15");
    expect(await credits()).toBe(-15);

    // The plan, granted without payment: its 1,000 monthly credits come with it.
    await page.locator('select[name="grantProduct"]').selectOption("pro");
    await page.getByRole("button", { name: "Grant product" }).click();
    const proRow = page.getByTestId("payments-customer-products-table").locator('tr[data-product-id="pro"]');
    await proRow.waitFor();
    expect(await proRow.textContent()).toContain("Subscription");
    await quantityShown("credits", "985");
    expect(await credits()).toBe(985);

    await proRow.getByRole("button", { name: "Cancel subscription" }).click();
    await modal().getByRole("button", { name: "Cancel subscription" }).click();
    await proRow.getByText("Cancelled").waitFor();
    expect(await proRow.getByTestId("product-period").textContent()).toMatch(/^Ends /);
    const held = await adminGet(`/payments/products/user/${customer.id}`);
    expect(held.items).toMatchObject([
      { id: "pro", subscription: { cancel_at_period_end: true, is_cancelable: false } },
    ]);
  });

  it("makes a test purchase link for the user that opens the purchase page", async () => {
    await page.locator('select[name="purchaseProduct"]').selectOption("credit-pack");
    await page.getByRole("button", { name: "Create test purchase link" }).click();
    const link = page.getByTestId("payments-purchase-link");
    await link.waitFor();
    const url = (await link.locator("code").textContent()) ?? "";
    expect(url.startsWith(`${env.baseUrl}/purchase/${projectId}_`)).toBe(true);

    const [purchase] = await Promise.all([
      page.context().waitForEvent("page"),
      link.getByRole("link", { name: "Open purchase page" }).click(),
    ]);
    await purchase.getByTestId("purchase-checkout").waitFor();
    expect(await purchase.getByTestId("purchase-product").textContent()).toBe("Credit pack");
    expect(await purchase.getByTestId("purchase-project").textContent()).toBe("Payments project");
    await purchase.getByLabel("Quantity").fill("2");
    await purchase.getByRole("button", { name: "Complete test purchase" }).click();
    await purchase.getByTestId("purchase-done").waitFor();
    await purchase.close();
    expect(await credits()).toBe(1085);

    await page.reload();
    await quantityShown("credits", "1,085");
  });

  it("lists the transactions, newest first, filtered by type and customer type", async () => {
    // From the customer's page: the list of Casey's transactions.
    await page.getByTestId("payments-customer").getByRole("link", { name: "Transactions" }).click();
    await page.waitForURL(/\/payments\/transactions/);
    const rows = page.getByTestId("payments-transactions-table").locator("tbody tr");
    await rows.first().waitFor();
    // The customer's page opened it filtered to Casey; all of these are Casey's.
    await page.getByTestId("transactions-customer-filter").waitFor();
    expect(await rows.count()).toBe(4);
    const types = await rows.evaluateAll((all) => all.map((row) => row.getAttribute("data-type")));
    expect(types).toEqual([
      "purchase",
      "purchase",
      "manual-item-quantity-change",
      "manual-item-quantity-change",
    ]);
    const newest = rows.first();
    expect(await newest.getByTestId("transaction-what").textContent()).toBe(
      "2 × Credit pack at $5.00 one-time",
    );
    expect(await newest.getByText("Test", { exact: true }).count()).toBe(1);
    // The customer by name, not only by id.
    await expect
      .poll(() => newest.getByTestId("transaction-customer").textContent())
      .toBe("User Casey Customer");
    expect(await rows.nth(1).getByTestId("transaction-what").textContent()).toBe(
      "1 × Pro (granted without payment)",
    );
    expect(await rows.nth(3).getByTestId("transaction-what").textContent()).toBe(
      "+25 Credits — Welcome bonus",
    );

    await page.getByRole("link", { name: "All customers" }).click();
    await page.getByTestId("transactions-customer-filter").waitFor({ state: "detached" });
    await page.locator('select[name="transactionType"]').selectOption("manual-item-quantity-change");
    await expect
      .poll(() => rows.evaluateAll((all) => all.map((row) => row.getAttribute("data-type"))))
      .toEqual(["manual-item-quantity-change", "manual-item-quantity-change"]);
    await page.locator('select[name="transactionCustomerType"]').selectOption("team");
    await page.getByRole("heading", { name: "No transactions" }).waitFor();
    await page.locator('select[name="transactionType"]').selectOption("");
    await page.locator('select[name="transactionCustomerType"]').selectOption("user");
    await expect.poll(() => rows.count()).toBe(4);
    expect(await page.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);

    // A row's customer opens that customer.
    await rows.first().getByRole("link").click();
    await page.waitForURL(
      (url) => url.pathname.endsWith("/payments/customers") && url.searchParams.get("id") === customer.id,
    );
    await quantityShown("credits", "1,085");
  });

  it("opens a custom customer by the id the app uses", async () => {
    await page.locator('select[name="customerType"]').selectOption("custom");
    await page.locator('input[name="customerId"]').fill("org_42");
    await page.getByRole("button", { name: "Open", exact: true }).click();
    await page.waitForURL(
      (url) => url.searchParams.get("type") === "custom" && url.searchParams.get("id") === "org_42",
    );
    await page
      .getByTestId("payments-customer")
      .getByRole("heading", { name: /org_42/ })
      .waitFor();
    // Credits are for users: a custom customer has no items in this catalogue, and holds nothing.
    await page.getByRole("heading", { name: "No custom items in the catalogue" }).waitFor();
    await page.getByTestId("payments-customer-products").getByText("Holds no products.").waitFor();
  });

  it("every payments page, light and dark", async () => {
    const pages: [string, string][] = [
      ["payments", "catalogue"],
      [`payments/customers?type=user&id=${customer.id}`, "customer"],
      ["payments/transactions", "transactions"],
    ];
    for (const scheme of ["light", "dark"] as const) {
      await page.evaluate((value) => localStorage.setItem("gatehouse-dashboard-theme", value), scheme);
      for (const [path, name] of pages) {
        await go(path);
        expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
        if (name === "customer") {
          await quantityShown("credits", "1,085");
          await page.getByTestId("payments-customer-products-table").waitFor();
        }
        if (name === "transactions") await page.getByTestId("payments-transactions-table").waitFor();
        await screenshot(page, `payments-${name}-${scheme}`);
      }
      if (scheme === "dark") {
        await go("payments");
        await page.getByRole("button", { name: "Edit Pro" }).click();
        await modal().locator('input[name="price-0-amount-0"]').waitFor();
        await screenshot(page, "payments-product-form-dark");
        await modal().getByRole("button", { name: "Cancel" }).click();
      }
    }
    await page.evaluate(() => localStorage.removeItem("gatehouse-dashboard-theme"));
  });
});
