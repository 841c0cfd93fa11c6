/**
 * The purchase flow (PROTOCOL-EXTRA §2.4): a purchase URL for a customer and a product, the code checks the
 * purchase page makes, and completing a purchase in test mode, which grants the product with no payment provider.
 *
 * One deliberate difference from the reference: it refuses purchase URLs until a Stripe account is connected, even
 * in test mode; here test mode needs no provider at all, so an owner can try the whole flow on a fresh install. With
 * test mode off, purchase URLs need the project's Stripe account (stripe-routes.ts), and the page pays through
 * Stripe Checkout (`checkout-session`) rather than the Elements flow of `purchase-session`.
 */
import type { WirePurchaseUrl } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import { CUSTOMER_TYPES } from "../../config/payments.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { markCodeUsed } from "../verification-codes/service.ts";
import { type Customer, inlineProductSchema, productForCustomer } from "./catalogue.ts";
import { accountChargesEnabled } from "./charges-enabled.ts";
import { checkClientCustomerAccess, customerIdField, requireCustomerExists } from "./customers.ts";
import {
  checkReturnUrl,
  createPurchaseUrl,
  openPurchaseCode,
  projectOfFullCode,
  purchaseAttemptOfCode,
  requireOpenForPurchases,
} from "./purchase-codes.ts";
import {
  listCustomerPurchases,
  livePurchases,
  ownedQuantity,
  productIdsInLine,
  recordPurchase,
} from "./purchases.ts";
import { findStripeAccountId } from "./stripe.ts";

const tags = ["Payments"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });
const open = routeGroup({ tags, access: "public" });
const FORBIDDEN = "Clients may only buy for their own user, or for teams where they hold team_admin.";

const fullCodeField = z.string().min(1).max(300);
const returnUrlField = z.string().max(2000).optional();

export const purchaseRoutes = [
  anyKey.post("/payments/purchases/create-purchase-url", {
    summary: "A URL of the purchase page for one customer and one product",
    request: {
      body: z.strictObject({
        customer_type: z.enum(CUSTOMER_TYPES),
        customer_id: customerIdField,
        product_id: z.string().min(1).max(200).optional(),
        product_inline: inlineProductSchema.optional(),
        // The names of the protocol's first versions, still sent by older SDKs.
        offer_id: z.string().min(1).max(200).optional(),
        offer_inline: inlineProductSchema.optional(),
        return_url: returnUrlField,
      }),
    },
    response: { body: wire<WirePurchaseUrl>()(z.object({ url: z.string() })) },
    handler: async ({ deps, auth, body }) => {
      const config = auth.config;
      requireOpenForPurchases(config);
      const customer: Customer = { type: body.customer_type, id: body.customer_id };
      await checkClientCustomerAccess(deps.db, auth, customer, FORBIDDEN);
      const productId = body.product_id ?? body.offer_id;
      const inline = body.product_inline ?? body.offer_inline;
      if ((productId === undefined) === (inline === undefined)) {
        throw new StatusError(400, "Give exactly one of product_id and product_inline.");
      }
      const fromClient = auth.accessType === "client";
      if (inline !== undefined && fromClient) {
        throw new StatusError(
          400,
          "Only servers may sell a product given inline; clients name a product_id.",
        );
      }
      const choice = productForCustomer(config, { productId, inline, fromClient }, customer);
      await requireCustomerExists(deps.db, auth.project.id, customer);
      if (choice.productId !== null && !choice.product.stackable) {
        const held = await listCustomerPurchases(deps.db, auth.project.id, customer);
        if (ownedQuantity(held, choice.productId, new Date()) > 0) {
          throw knownError("PRODUCT_ALREADY_GRANTED", {
            product_id: choice.productId,
            customer_id: customer.id,
          });
        }
      }
      checkReturnUrl(config, body.return_url);
      if (!config.payments.testMode && !(await findStripeAccountId(deps.db, auth.project.id))) {
        throw new StatusError(
          400,
          "Payments are not set up: connect a Stripe account (POST /internal/payments/setup, or Payments in the dashboard), or turn on test mode (payments.testMode) to sell without one.",
        );
      }
      const url = await createPurchaseUrl(
        deps,
        auth.project.id,
        {
          customer_type: customer.type,
          customer_id: customer.id,
          product_id: choice.productId,
          product: choice.product,
        },
        body.return_url,
      );
      return { body: { url } };
    },
  }),
  open.post("/payments/purchases/validate-code", {
    summary: "What a purchase code offers (read by the purchase page; the code is the credential)",
    request: { body: z.strictObject({ full_code: fullCodeField, return_url: returnUrlField }) },
    response: {
      body: z.object({
        product: inlineProductSchema.passthrough(),
        stripe_account_id: z.string().nullable(),
        project_id: z.string(),
        project_display_name: z.string(),
        project_logo_url: z.string().nullable(),
        already_bought_non_stackable: z.boolean(),
        conflicting_products: z.array(z.object({ product_id: z.string(), display_name: z.string() })),
        test_mode: z.boolean(),
        charges_enabled: z.boolean(),
      }),
    },
    handler: async ({ deps, body, clientIp }) => {
      const open = await openPurchaseCode(deps, body.full_code, clientIp);
      checkReturnUrl(open.config, body.return_url);
      const customer: Customer = { type: open.data.customer_type, id: open.data.customer_id };
      const now = new Date();
      const held = await listCustomerPurchases(deps.db, open.project.id, customer);
      const productId = open.data.product_id;
      const product = open.data.product;
      const alreadyBought =
        productId !== null && !product.stackable && ownedQuantity(held, productId, now) > 0;
      const isSubscription = Object.values(product.prices).some((price) => price.interval);
      const lineId =
        productId === null ? null : (open.config.payments.products[productId]?.productLineId ?? null);
      const line = productIdsInLine(open.config, lineId).filter((id) => id !== productId);
      const conflicting = isSubscription
        ? [
            ...new Set(
              livePurchases(held, now).flatMap((row) =>
                row.productId && line.includes(row.productId) ? [row.productId] : [],
              ),
            ),
          ]
        : [];
      const accountId = await findStripeAccountId(deps.db, open.project.id);
      let chargesEnabled = false;
      if (accountId !== null && !open.config.payments.testMode) {
        chargesEnabled = await accountChargesEnabled(deps.env, accountId);
      }
      // Prices only a server may sell (by granting) stay off the end user's page.
      const prices = Object.fromEntries(
        Object.entries(product.prices).filter(([, price]) => !price.server_only),
      );
      return {
        body: {
          product: { ...product, prices },
          stripe_account_id: accountId,
          project_id: open.project.id,
          project_display_name: open.project.displayName,
          project_logo_url: open.project.logoUrl ?? null,
          already_bought_non_stackable: alreadyBought,
          conflicting_products: conflicting.map((id) => ({
            product_id: id,
            display_name: open.config.payments.products[id]?.displayName ?? id,
          })),
          test_mode: open.config.payments.testMode,
          charges_enabled: chargesEnabled,
        },
      };
    },
  }),
  open.get("/payments/purchases/validate-code", {
    summary: "Whether a purchase code's project and return URL are acceptable (the code itself is not read)",
    request: { query: z.strictObject({ full_code: fullCodeField, return_url: returnUrlField }) },
    response: { body: z.object({ valid: z.literal(true) }) },
    handler: async ({ deps, query }) => {
      const { config } = await projectOfFullCode(deps, query.full_code);
      checkReturnUrl(config, query.return_url);
      return { body: { valid: true } };
    },
  }),
  open.post("/internal/payments/test-mode-purchase-session", {
    summary: "Complete a purchase in test mode: the product is granted with no payment",
    request: {
      body: z.strictObject({
        full_code: fullCodeField,
        price_id: z.string().min(1).max(200),
        quantity: z.number().int().min(1).max(1_000_000).default(1),
      }),
    },
    response: { body: z.object({ success: z.literal(true) }) },
    handler: async ({ deps, body, clientIp }) => {
      const open = await openPurchaseCode(deps, body.full_code, clientIp);
      const { config } = open;
      if (!config.payments.testMode) throw new StatusError(403, "This project is not in payments test mode.");
      requireOpenForPurchases(config);
      const attempt = await purchaseAttemptOfCode(deps.db, open, body.price_id, body.quantity);
      await recordPurchase(deps.db, config, open.project.id, {
        ...attempt,
        source: "test_mode",
        testMode: true,
        // A double-clicked button or a retried request completes the purchase once.
        idempotencyKey: `purchase-code:${open.codeRow.id}`,
      });
      await markCodeUsed(deps.db, open.project.id, open.codeRow.id);
      return { body: { success: true } };
    },
  }),
  open.post("/payments/purchases/purchase-session", {
    summary: "Stripe Elements payments are not offered: the purchase page pays with Stripe Checkout",
    request: {
      body: z.strictObject({
        full_code: fullCodeField,
        price_id: z.string().min(1).max(200),
        quantity: z.number().int().min(1).max(1_000_000).default(1),
      }),
    },
    response: { body: z.object({ client_secret: z.string() }) },
    handler: async ({ deps, body, clientIp }) => {
      const open = await openPurchaseCode(deps, body.full_code, clientIp);
      requireOpenForPurchases(open.config);
      throw new StatusError(
        400,
        open.config.payments.testMode
          ? "This project is in payments test mode: complete the purchase with the test-mode button instead."
          : "Pay through Stripe Checkout: POST /payments/purchases/checkout-session gives its URL.",
      );
    },
  }),
];
