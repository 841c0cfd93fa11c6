/** The admin app's Stripe methods (PROTOCOL-EXTRA §2.7) against a listening server and the Stripe stand-in. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type StripeStandIn, startStripeStandIn } from "../../../server/src/testing/stripe-stand-in.ts";
import { appsFor } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";

let stripe: StripeStandIn;
let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  gh = await startGatehouse({
    stripe: { secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, apiUrl: stripe.url },
  });
  apps = appsFor(gh, await gh.createProject("Stripe owner"));
});
afterAll(async () => {
  await gh?.close();
  await stripe?.close();
});

it("connects the project's Stripe account and reads its state, null before", async () => {
  const admin = apps.admin();
  expect(await admin.getStripeAccountInfo()).toBeNull();
  await expect(admin.createStripeWidgetAccountSession()).rejects.toThrow(/set up payments first/);
  const { url } = await admin.setupPayments();
  expect(url.startsWith(`${stripe.url}/connect/onboarding/`)).toBe(true);
  const before = await admin.getStripeAccountInfo();
  expect(before).toEqual({
    accountId: expect.stringMatching(/^acct_/),
    chargesEnabled: false,
    detailsSubmitted: false,
    payoutsEnabled: false,
  });
  expect((await fetch(url, { redirect: "manual" })).status).toBe(303);
  expect(await admin.getStripeAccountInfo()).toMatchObject({
    accountId: before!.accountId,
    chargesEnabled: true,
  });
  expect((await admin.createStripeWidgetAccountSession()).clientSecret).toMatch(/^acs_secret_/);
});
