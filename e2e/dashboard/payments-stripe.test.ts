import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type StripeStandIn, startStripeStandIn } from "../../packages/server/src/testing/stripe-stand-in.ts";
import { type DashboardEnv, ownerWithProject, screenshot, startDashboard } from "./test-support.ts";

/**
 * Connecting Stripe from the Payments page, against the local stand-in of Stripe (testing/stripe-stand-in.ts): the
 * owner presses "Connect Stripe", goes through Stripe's onboarding (the stand-in's, which finishes at once) and comes
 * back to the Payments page, which now says the account can take payments. Light and dark.
 */
let stripe: StripeStandIn;
let env: DashboardEnv;
let page: Page;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  env = await startDashboard({
    env: { stripe: { secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, apiUrl: stripe.url } },
  });
  page = await env.newPage();
});
afterAll(async () => {
  await env?.close();
  await stripe?.close();
});

it("connects the project's Stripe account through Stripe's onboarding and shows it can take payments", async () => {
  const projectId = await ownerWithProject(env, page, "stripe-owner@example.com", "Stripe project");
  await page.getByRole("link", { name: "Payments" }).click();
  const status = page.getByTestId("payments-stripe-status");
  await status.waitFor();
  expect(await status.textContent()).toContain("No Stripe account is connected");
  await page.getByRole("button", { name: "Connect Stripe" }).click();
  // Stripe's onboarding sends the owner back to the Payments page.
  await page.waitForURL(`${env.baseUrl}/projects/${projectId}/payments`);
  await page.getByText("Can take payments").waitFor();
  const [accountId] = [...stripe.accounts.keys()];
  expect(await status.textContent()).toContain(accountId);
  expect(stripe.accounts.get(accountId!)!.metadata).toEqual({ tenancyId: projectId });
  for (const scheme of ["light", "dark"] as const) {
    await page.evaluate((value) => localStorage.setItem("gatehouse-dashboard-theme", value), scheme);
    await page.reload();
    await page.getByText("Can take payments").waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
    await screenshot(page, `payments-stripe-${scheme}`);
  }
  await page.getByRole("button", { name: "Open Stripe onboarding again" }).waitFor();
  expect(stripe.accounts.size).toBe(1);
});
