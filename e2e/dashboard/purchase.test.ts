import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_CATALOGUE } from "../../packages/server/src/features/payments/test-catalogue.ts";
import {
  type BrowserTest,
  saveScreenshot,
  startBrowserTest,
} from "../../packages/server/src/testing/browser.ts";
import type { TestProject } from "../../packages/server/src/testing/harness.ts";
import { makePng } from "../../packages/server/src/testing/images.ts";
import { expireCode } from "../../packages/server/src/testing/time.ts";
import { buildDashboard } from "./test-support.ts";

/**
 * The purchase page as an app's end user meets it: the app's server makes a purchase URL with its secret server
 * key (POST /payments/purchases/create-purchase-url), the user opens it in Chromium, with no dashboard account,
 * chooses a price and a quantity and completes the test-mode purchase by clicking; the browser lands back on the
 * app's return URL and the API shows what was granted. Used, expired and unknown links are shown in words. Light
 * and dark screenshots follow the browser's colour scheme, as an end user's would.
 */
let session: BrowserTest;
let project: TestProject;
let app: Server;
let appUrl: string;
const schemes = ["light", "dark"] as const;
type Scheme = (typeof schemes)[number];

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${session.server.baseUrl}/api/v1${path}`, {
    method,
    headers: {
      ...project.headers("server"),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, text };
}

async function createUser(email: string): Promise<string> {
  const created = await api("POST", "/users", { primary_email: email, display_name: email.split("@")[0] });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

/** What the app's server does: a purchase URL for one of its users, with its secret server key. */
async function purchaseUrl(userId: string, productId: string, returnUrl?: string): Promise<string> {
  const created = await api("POST", "/payments/purchases/create-purchase-url", {
    customer_type: "user",
    customer_id: userId,
    product_id: productId,
    ...(returnUrl ? { return_url: returnUrl } : {}),
  });
  expect(created.status, created.text).toBe(200);
  const url: string = created.body.url;
  expect(url.startsWith(`${session.server.baseUrl}/purchase/${project.id}_`)).toBe(true);
  return url;
}

async function quantity(userId: string, itemId: string): Promise<number> {
  const read = await api("GET", `/payments/items/user/${userId}/${itemId}`);
  expect(read.status, read.text).toBe(200);
  return read.body.quantity;
}

/** A fresh browser profile with the given colour scheme; the page follows it (no toggle for end users). */
async function openPage(
  scheme: Scheme,
  url: string,
): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const { page, context, errors } = await session.newPage({ viewport: { width: 1024, height: 860 } });
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(url);
  await page.getByTestId("purchase-card").and(page.locator(':not([data-stage="loading"])')).waitFor();
  expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
  return { page, errors, close: () => context.close() };
}

async function shot(page: Page, name: string): Promise<void> {
  await saveScreenshot(page, `dashboard/${name}`);
}

beforeAll(async () => {
  await buildDashboard();
  session = await startBrowserTest();
  project = await session.server.createProject("Acme Notes");
  await project.configure(TEST_CATALOGUE);
  // The project's logo, which the purchase page shows (an admin's change, like the dashboard's logo picker).
  const logo = await fetch(`${session.server.baseUrl}/api/v1/internal/projects/current`, {
    method: "PATCH",
    headers: { ...project.headers("admin"), "content-type": "application/json" },
    body: JSON.stringify({
      logo_url: `data:image/png;base64,${makePng(32, 32, [79, 70, 229]).toString("base64")}`,
    }),
  });
  expect(logo.status, await logo.text()).toBe(200);
  // The app the purchase page sends its users back to.
  app = createServer((request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(`<!doctype html><title>Acme Notes</title><h1>Back in Acme Notes</h1><p>${request.url}</p>`);
  });
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
  await session?.close();
});

describe("the purchase page", () => {
  let usedUrl: string;

  it.each(schemes)(
    "sells a stackable pack in test mode and goes back to the app's return URL (%s)",
    async (scheme) => {
      const userId = await createUser(`pack-buyer-${scheme}@example.com`);
      const returnUrl = `${appUrl}/billing?bought=credit-pack`;
      const url = await purchaseUrl(userId, "credit-pack", returnUrl);
      const { page, errors, close } = await openPage(scheme, url);
      try {
        await page.getByTestId("purchase-checkout").waitFor();
        expect(await page.getByTestId("purchase-test-mode").textContent()).toContain("TEST MODE");
        expect(await page.getByTestId("purchase-project").textContent()).toBe("Acme Notes");
        expect(await page.locator(".purchase-logo").count()).toBe(1);
        expect(await page.getByTestId("purchase-product").textContent()).toBe("Credit pack");
        // One price, chosen already; a stackable product asks how many.
        const radios = page.getByRole("radio");
        expect(await radios.count()).toBe(1);
        expect(await radios.first().isChecked()).toBe(true);
        await page.getByLabel("Quantity").fill("3");
        await page.getByTestId("purchase-total").getByText("$15.00").waitFor();
        expect(await quantity(userId, "credits")).toBe(0);
        await shot(page, `purchase-checkout-${scheme}`);

        await page.getByRole("button", { name: "Complete test purchase" }).click();
        await page.waitForURL(returnUrl);
        await page.getByRole("heading", { name: "Back in Acme Notes" }).waitFor();
        // 3 packs of 50 credits, granted by the purchase.
        expect(await quantity(userId, "credits")).toBe(150);
        const held = await api("GET", `/payments/products/user/${userId}`);
        expect(held.body.items).toMatchObject([{ id: "credit-pack", quantity: 3 }]);
        expect(errors).toEqual([]);
        if (scheme === "light") usedUrl = url;
      } finally {
        await close();
      }
    },
  );

  it.each(schemes)(
    "offers a plan's prices, notes the plan it replaces, and says to close the page without a return URL (%s)",
    async (scheme) => {
      const userId = await createUser(`plan-buyer-${scheme}@example.com`);
      // The user is on Starter; Pro is in the same product line.
      const granted = await api("POST", `/payments/products/user/${userId}`, { product_id: "starter" });
      expect(granted.status, granted.text).toBe(200);
      const url = await purchaseUrl(userId, "pro");
      const { page, errors, close } = await openPage(scheme, url);
      try {
        await page.getByTestId("purchase-checkout").waitFor();
        expect(await page.getByTestId("purchase-conflicts").textContent()).toContain("Starter");
        // Not stackable: no quantity. Only the monthly price: the server-only one is never on an end user's page.
        expect(await page.getByLabel("Quantity").count()).toBe(0);
        expect(await page.locator(".purchase-price").count()).toBe(1);
        expect(await page.locator(".purchase-price").nth(0).textContent()).toContain("$29.00");
        expect(await page.locator(".purchase-price").nth(0).textContent()).toContain("per month");
        expect(await page.locator(".purchase-includes").textContent()).toContain("1,000 credits per month");
        await shot(page, `purchase-plan-${scheme}`);

        await page.getByRole("button", { name: "Complete test purchase" }).click();
        await page.getByTestId("purchase-done").waitFor();
        expect(await page.getByRole("heading", { name: "Purchase complete" }).isVisible()).toBe(true);
        expect(await page.getByTestId("purchase-close").textContent()).toBe("You can close this page now.");
        expect(new URL(page.url()).pathname).toBe(new URL(url).pathname);
        await shot(page, `purchase-done-${scheme}`);

        // Pro replaced Starter; its monthly price is a subscription.
        const held = await api("GET", `/payments/products/user/${userId}`);
        expect(held.body.items.map((item: { id: string }) => item.id)).toEqual(["pro"]);
        expect(held.body.items[0].type).toBe("subscription");
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    },
  );

  it("says a product is already held and does not sell it twice", async () => {
    const userId = await createUser("owner-already@example.com");
    const url = await purchaseUrl(userId, "lifetime");
    // Granted after the link was made (e.g. by support): the page must not sell it again.
    expect((await api("POST", `/payments/products/user/${userId}`, { product_id: "lifetime" })).status).toBe(
      200,
    );
    const { page, close } = await openPage("light", url);
    try {
      await page.getByTestId("purchase-already-bought").waitFor();
      expect(await page.getByRole("button", { name: "Complete test purchase" }).isDisabled()).toBe(true);
      await shot(page, "purchase-already-bought-light");
    } finally {
      await close();
    }
  });

  it.each(schemes)(
    "shows a used, an expired and an unknown link in words, never the API's text (%s)",
    async (scheme) => {
      expect(usedUrl).toBeDefined();
      const used = await openPage(scheme, usedUrl);
      try {
        await used.page.getByTestId("purchase-error").waitFor();
        expect(await used.page.getByRole("heading").textContent()).toBe(
          "This purchase link was already used",
        );
        expect(await used.page.getByTestId("purchase-error").textContent()).not.toMatch(
          /VERIFICATION_CODE|code/i,
        );
        await shot(used.page, `purchase-used-${scheme}`);
      } finally {
        await used.close();
      }

      const userId = await createUser(`late-buyer-${scheme}@example.com`);
      const url = await purchaseUrl(userId, "lifetime", `${appUrl}/billing`);
      const fullCode = decodeURIComponent(new URL(url).pathname.split("/").pop()!);
      await expireCode(session.server, fullCode.slice(fullCode.lastIndexOf("_") + 1));
      const expired = await openPage(scheme, url);
      try {
        await expired.page.getByTestId("purchase-error").waitFor();
        expect(await expired.page.getByRole("heading").textContent()).toBe("This purchase link has expired");
        expect(await expired.page.getByTestId("purchase-error").textContent()).toContain("24 hours");
        // Nothing to buy, so no button; and nothing was granted.
        expect(await expired.page.getByRole("button", { name: "Complete test purchase" }).count()).toBe(0);
        await shot(expired.page, `purchase-expired-${scheme}`);
      } finally {
        await expired.close();
      }
      expect((await api("GET", `/payments/products/user/${userId}`)).body.items).toEqual([]);

      const unknown = await openPage(
        scheme,
        `${session.server.baseUrl}/purchase/${project.id}_${"x".repeat(45)}`,
      );
      try {
        expect(await unknown.page.getByRole("heading").textContent()).toBe(
          "This purchase link does not work",
        );
      } finally {
        await unknown.close();
      }
    },
  );

  it("says card payments are not available when the project left test mode", async () => {
    const userId = await createUser("no-cards@example.com");
    const url = await purchaseUrl(userId, "lifetime");
    await project.configure({ "payments.testMode": false });
    try {
      const { page, close } = await openPage("light", url);
      try {
        await page.getByTestId("purchase-no-cards").waitFor();
        expect(await page.getByTestId("purchase-test-mode").count()).toBe(0);
        expect(await page.getByRole("button", { name: "Pay" }).isDisabled()).toBe(true);
        await shot(page, "purchase-no-cards-light");
      } finally {
        await close();
      }
    } finally {
      await project.configure({ "payments.testMode": true });
    }
  });
});
