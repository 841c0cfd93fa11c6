/**
 * Stripe's part of payments (PROTOCOL-EXTRA §2.4-2.5): connecting the project's Stripe account (onboarding link,
 * account state, the session for Stripe's embedded dashboard components) and paying a purchase code with Stripe
 * Checkout, whose completion arrives by webhook (stripe-webhook.ts). Test mode never reaches Stripe.
 */
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { markCodeUsed } from "../verification-codes/service.ts";
import { rememberStripeAccount } from "./charges-enabled.ts";
import {
  checkReturnUrl,
  openPurchaseCode,
  purchaseAttemptOfCode,
  requireOpenForPurchases,
} from "./purchase-codes.ts";
import { checkPurchaseNow } from "./purchases.ts";
import {
  ensureStripeAccount,
  ensureStripeCustomer,
  findStripeAccountId,
  stripeClient,
  usdToCents,
} from "./stripe.ts";

const tags = ["Payments"];
const admin = routeGroup({ tags, access: ["admin"] });
const open = routeGroup({ tags, access: "public" });

/** What the purchase code's checkout session carries back to the webhook. */
export type CheckoutMetadata = {
  gatehouse_project_id: string;
  purchase_code_id: string;
  price_id: string;
  quantity: string;
};

export const stripeRoutes = [
  admin.post("/internal/payments/setup", {
    summary: "Connect the project's Stripe account: a link to Stripe's onboarding",
    response: { body: z.object({ url: z.string() }) },
    handler: async ({ deps, auth }) => {
      const accountId = await ensureStripeAccount(deps, auth.project.id);
      const back = `${deps.env.baseUrl}/projects/${encodeURIComponent(auth.project.id)}/payments`;
      const stripe = await stripeClient(deps.env);
      const link = await stripe.accountLinks.create({
        account: accountId,
        refresh_url: back,
        return_url: back,
        type: "account_onboarding",
      });
      return { body: { url: link.url } };
    },
  }),
  admin.get("/internal/payments/stripe/account-info", {
    summary: "The state of the project's Stripe account",
    response: {
      body: z.object({
        account_id: z.string(),
        charges_enabled: z.boolean(),
        details_submitted: z.boolean(),
        payouts_enabled: z.boolean(),
      }),
    },
    handler: async ({ deps, auth }) => {
      const accountId = await findStripeAccountId(deps.db, auth.project.id);
      if (!accountId) throw knownError("STRIPE_ACCOUNT_INFO_NOT_FOUND");
      const stripe = await stripeClient(deps.env);
      const account = await stripe.accounts.retrieve(accountId);
      rememberStripeAccount(account);
      return {
        body: {
          account_id: account.id,
          charges_enabled: account.charges_enabled ?? false,
          details_submitted: account.details_submitted ?? false,
          payouts_enabled: account.payouts_enabled ?? false,
        },
      };
    },
  }),
  admin.post("/internal/payments/stripe-widgets/account-session", {
    summary: "A session for Stripe's embedded components (payments, payouts, notifications)",
    response: { body: z.object({ client_secret: z.string() }) },
    handler: async ({ deps, auth }) => {
      const accountId = await findStripeAccountId(deps.db, auth.project.id);
      if (!accountId) throw new StatusError(400, "No Stripe account is connected: set up payments first.");
      const stripe = await stripeClient(deps.env);
      const session = await stripe.accountSessions.create({
        account: accountId,
        components: {
          payments: {
            enabled: true,
            features: { refund_management: true, dispute_management: true, capture_payments: true },
          },
          notification_banner: { enabled: true },
          payouts: { enabled: true },
        },
      });
      return { body: { client_secret: session.client_secret } };
    },
  }),
  open.post("/payments/purchases/checkout-session", {
    summary: "Pay a purchase code with Stripe Checkout: the URL of Stripe's payment page",
    request: {
      body: z.strictObject({
        full_code: z.string().min(1).max(300),
        price_id: z.string().min(1).max(200),
        quantity: z.number().int().min(1).max(1_000_000).default(1),
        return_url: z.string().max(2000).optional(),
      }),
    },
    response: { body: z.object({ url: z.string() }) },
    handler: async ({ deps, body, clientIp }) => {
      const open = await openPurchaseCode(deps, body.full_code, clientIp);
      const { config, project } = open;
      requireOpenForPurchases(config);
      if (config.payments.testMode) {
        throw new StatusError(
          400,
          "This project is in payments test mode: complete the purchase without paying.",
        );
      }
      checkReturnUrl(config, body.return_url);
      const attempt = await purchaseAttemptOfCode(deps.db, open, body.price_id, body.quantity);
      if (attempt.price.USD === undefined) {
        throw new StatusError(400, "Card payments are in US dollars, and this price has no USD amount.");
      }
      await checkPurchaseNow(deps.db, config, project.id, attempt);
      const accountId = await findStripeAccountId(deps.db, project.id);
      if (!accountId) throw new StatusError(400, "This project has not connected a Stripe account yet.");
      const stripeCustomerId = await ensureStripeCustomer(deps, project.id, accountId, attempt.customer);
      const interval = attempt.price.interval;
      const metadata: CheckoutMetadata = {
        gatehouse_project_id: project.id,
        purchase_code_id: open.codeRow.id,
        price_id: body.price_id,
        quantity: String(body.quantity),
      };
      const done = body.return_url ?? `${deps.env.baseUrl}/purchase/done`;
      const stripe = await stripeClient(deps.env);
      const session = await stripe.checkout.sessions.create(
        {
          mode: interval ? "subscription" : "payment",
          customer: stripeCustomerId,
          line_items: [
            {
              quantity: body.quantity,
              price_data: {
                currency: "usd",
                unit_amount: usdToCents(attempt.price.USD),
                product_data: { name: attempt.choice.product.display_name },
                ...(interval ? { recurring: { interval: interval[1], interval_count: interval[0] } } : {}),
              },
            },
          ],
          success_url: done,
          cancel_url: done,
          metadata,
          ...(interval ? { subscription_data: { metadata } } : { payment_intent_data: { metadata } }),
        },
        // One checkout per purchase code, however often the button is pressed.
        {
          stripeAccount: accountId,
          idempotencyKey: `checkout:${open.codeRow.id}:${body.price_id}:${body.quantity}`,
        },
      );
      if (!session.url) throw new Error("Stripe returned a checkout session without a URL");
      // The code is spent: the purchase now belongs to the checkout, which the webhook completes.
      await markCodeUsed(deps.db, project.id, open.codeRow.id);
      return { body: { url: session.url } };
    },
  }),
];
