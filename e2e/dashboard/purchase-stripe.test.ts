import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { GatehouseServerApp } from "@gatehouse/js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TEST_CATALOGUE } from "../../packages/server/src/features/payments/test-catalogue.ts";
import {
  type BrowserTest,
  saveScreenshot,
  startBrowserTest,
} from "../../packages/server/src/testing/browser.ts";
import type { TestProject } from "../../packages/server/src/testing/harness.ts";
import { type StripeStandIn, startStripeStandIn } from "../../packages/server/src/testing/stripe-stand-in.ts";
import { buildDashboard } from "./test-support.ts";

/**
 * A card payment as an app's end user makes it, with Stripe replaced by a local stand-in of its API, Checkout page
 * and webhooks (testing/stripe-stand-in.ts): the owner's project has connected its Stripe account and left test
 * mode; the user opens the purchase URL in Chromium, presses "Pay with card", pays on the (stand-in) Stripe
 * Checkout page and lands on the app's return URL; Stripe's signed webhook has granted the plan, and the app sees
 * the credits through @gatehouse/js.
 */
let stripe: StripeStandIn;
let session: BrowserTest;
let project: TestProject;
let app: Server;
let appUrl: string;

beforeAll(async () => {
  await buildDashboard();
  stripe = await startStripeStandIn({
    // The server's address is known once it listens, which is before any event is sent.
    deliver: async (body, signature) =>
      (
        await fetch(`${session.server.baseUrl}/api/v1/integrations/stripe/webhooks`, {
          method: "POST",
          headers: { "content-type": "application/json", "stripe-signature": signature },
          body,
        })
      ).status,
  });
  session = await startBrowserTest({
    env: { stripe: { secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, apiUrl: stripe.url } },
  });
  project = await session.server.createProject("Acme Notes");
  await project.configure(TEST_CATALOGUE);
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
  await stripe?.close();
});

it("pays a plan on Stripe Checkout and the app sees its credits once Stripe's signed webhook arrived", async () => {
  const server = new GatehouseServerApp({
    projectId: project.id,
    secretServerKey: project.keys.secretServerKey,
    baseUrl: session.server.baseUrl,
    tokenStore: "memory",
  });
  // The owner connects Stripe (its onboarding link comes back to the dashboard) and leaves test mode.
  const setup = await fetch(`${session.server.baseUrl}/api/v1/internal/payments/setup`, {
    method: "POST",
    headers: { ...project.headers("admin"), "content-type": "application/json" },
    body: "{}",
  });
  expect(setup.status).toBe(200);
  const onboarding = await fetch(((await setup.json()) as { url: string }).url, { redirect: "manual" });
  expect(onboarding.status).toBe(303);
  await project.configure({ "payments.testMode": false });

  const user = await server.createUser({ primaryEmail: "carla@acme.example", displayName: "Carla" });
  const url = await user.createCheckoutUrl({ productId: "pro", returnUrl: `${appUrl}/billing` });

  for (const scheme of ["light", "dark"] as const) {
    const { page, context } = await session.newPage({ viewport: { width: 1024, height: 860 } });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(url);
    const pay = page.getByRole("button", { name: "Pay with card" });
    await pay.waitFor();
    expect(await page.getByTestId("purchase-test-mode").count()).toBe(0);
    await saveScreenshot(page, `dashboard/purchase-card-${scheme}`);
    if (scheme === "dark") {
      await pay.click();
      await page.waitForURL((target) => target.toString().startsWith(`${stripe.url}/checkout/`));
      expect(await page.getByTestId("amount").textContent()).toBe("$29.00 per period");
      await page.getByRole("button", { name: "Pay" }).click();
      await page.waitForURL(`${appUrl}/billing`);
      await page.getByRole("heading", { name: "Back in Acme Notes" }).waitFor();
    }
    await context.close();
  }

  // Stripe signed each event; the server took them all.
  expect(stripe.events.map((each) => [each.event.type, each.status])).toEqual([
    ["checkout.session.completed", 200],
    ["customer.subscription.created", 200],
    ["invoice.payment_succeeded", 200],
  ]);
  const credits = await server.getItem({ userId: user.id, itemId: "credits" });
  expect(credits.quantity).toBe(1000);
  const [plan] = await user.listProducts();
  expect(plan).toMatchObject({ id: "pro", type: "subscription", subscription: { cancelAtPeriodEnd: false } });
  // The link was spent by the checkout: opening it again says so in words.
  const { page, context } = await session.newPage();
  await page.goto(url);
  await page.getByTestId("purchase-error").waitFor();
  expect(await page.getByTestId("purchase-error").textContent()).toContain("already used");
  await context.close();
});
