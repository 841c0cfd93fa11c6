/**
 * The customer-facing payments routes (PROTOCOL-EXTRA §2.3): item quantities and their manual changes, the
 * products a customer holds (grant, list, cancel), and the billing and invoice reads that answer for customers with
 * no payment provider behind them (`has_customer: false`, no invoices) instead of a 404.
 */
import type { WireBilling, WireInvoice, WireItem, WirePaginatedList } from "@gatehouse/shared";
import { z } from "zod";
import { CUSTOMER_TYPES } from "../../config/payments.ts";
import type { Database } from "../../db/index.ts";
import { storableText } from "../../fields/text.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { type Customer, inlineProductSchema, itemForCustomer, productForCustomer } from "./catalogue.ts";
import { checkClientCustomerAccess, customerIdField, requireCustomerExists } from "./customers.ts";
import { changeItemQuantity, itemQuantity } from "./ledger.ts";
import { cancelSubscriptions, listCustomerPurchases, recordPurchase } from "./purchases.ts";
import { billingOf, cancelStripeSubscriptionAtPeriodEnd, invoicesOf } from "./stripe.ts";
import { compareProductOrder, customerProductSchema, customerProductViews, productCursor } from "./views.ts";

const tags = ["Payments"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });
const serverOrAdmin = routeGroup({ tags, access: ["server", "admin"] });

const customerParams = {
  customer_type: z.enum(CUSTOMER_TYPES),
  customer_id: customerIdField,
};
/** Billing and invoices exist only for users and teams. */
const userOrTeamParams = { customer_type: z.enum(["user", "team"]), customer_id: customerIdField };

export const customerOf = (params: { customer_type: Customer["type"]; customer_id: string }): Customer => ({
  type: params.customer_type,
  id: params.customer_id,
});

export const FORBIDDEN = "Clients may only act on their own user, or on teams where they hold team_admin.";

/** The customer the path names, once the caller may act on it and it exists in the project. */
export async function customerActedOn(
  db: Database,
  auth: RequestAuth,
  params: Parameters<typeof customerOf>[0],
): Promise<Customer> {
  const customer = customerOf(params);
  await checkClientCustomerAccess(db, auth, customer, FORBIDDEN);
  await requireCustomerExists(db, auth.project.id, customer);
  return customer;
}

const pageQuery = z.strictObject({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(10),
});

export const paymentCustomerRoutes = [
  anyKey.get("/payments/items/:customer_type/:customer_id/:item_id", {
    summary: "A customer's quantity of an item",
    request: { params: z.strictObject({ ...customerParams, item_id: z.string().min(1).max(200) }) },
    response: {
      body: wire<WireItem>()(z.object({ id: z.string(), display_name: z.string(), quantity: z.number() })),
    },
    handler: async ({ deps, auth, params }) => {
      const customer = customerOf(params);
      await checkClientCustomerAccess(deps.db, auth, customer, FORBIDDEN);
      const item = itemForCustomer(auth.config, params.item_id, customer);
      await requireCustomerExists(deps.db, auth.project.id, customer);
      const quantity = await itemQuantity(deps.db, { projectId: auth.project.id, customer, itemId: item.id });
      return { body: { id: item.id, display_name: item.displayName, quantity } };
    },
  }),
  serverOrAdmin.post("/payments/items/:customer_type/:customer_id/:item_id/update-quantity", {
    summary: "Add a signed change to a customer's quantity of an item, refused below zero unless allowed",
    request: {
      params: z.strictObject({ ...customerParams, item_id: z.string().min(1).max(200) }),
      query: z.strictObject({ allow_negative: z.enum(["true", "false"]) }),
      body: z.strictObject({
        delta: z
          .number()
          .int()
          .min(-1_000_000_000_000)
          .max(1_000_000_000_000)
          .refine((delta) => delta !== 0, { error: "must not be 0" }),
        expires_at: z.iso.datetime({ offset: true }).optional(),
        description: storableText(1000).optional(),
      }),
    },
    response: { body: z.object({}) },
    handler: async ({ deps, auth, params, query, body }) => {
      const customer = customerOf(params);
      const item = itemForCustomer(auth.config, params.item_id, customer);
      await requireCustomerExists(deps.db, auth.project.id, customer);
      const expiresAt = body.expires_at === undefined ? null : new Date(body.expires_at);
      if (expiresAt !== null && expiresAt.getTime() <= Date.now()) {
        throw new StatusError(400, "expires_at must be in the future.");
      }
      await changeItemQuantity(
        deps.db,
        { projectId: auth.project.id, customer, itemId: item.id },
        {
          delta: body.delta,
          expiresAt,
          description: body.description ?? null,
          allowNegative: query.allow_negative === "true",
        },
      );
      return { body: {} };
    },
  }),
  anyKey.get("/payments/products/:customer_type/:customer_id", {
    summary: "The products a customer holds, by product id",
    request: { params: z.strictObject(customerParams), query: pageQuery },
    response: {
      body: z.object({
        items: z.array(customerProductSchema),
        is_paginated: z.literal(true),
        pagination: z.object({ next_cursor: z.string().nullable() }),
      }),
    },
    handler: async ({ deps, auth, params, query }) => {
      const customer = await customerActedOn(deps.db, auth, params);
      const rows = await listCustomerPurchases(deps.db, auth.project.id, customer);
      let views = customerProductViews(auth.config, rows, new Date());
      if (auth.accessType === "client") views = views.filter((view) => !view.product.server_only);
      const cursor = query.cursor;
      // The page after the cursor's place in the order, even when that product is no longer held.
      if (cursor !== undefined) views = views.filter((view) => compareProductOrder(view, cursor) > 0);
      const page = views.slice(0, query.limit);
      const next = views.length > query.limit ? productCursor(page[page.length - 1]!) : null;
      return {
        body: {
          items: page.map(({ sortKey: _key, ...view }) => view),
          is_paginated: true,
          pagination: { next_cursor: next },
        },
      };
    },
  }),
  serverOrAdmin.post("/payments/products/:customer_type/:customer_id", {
    summary: "Grant a product to a customer without payment",
    request: {
      params: z.strictObject(customerParams),
      body: z
        .strictObject({
          product_id: z.string().min(1).max(200).optional(),
          product_inline: inlineProductSchema.optional(),
          quantity: z.number().int().min(1).max(1_000_000).default(1),
        })
        .refine((body) => (body.product_id === undefined) !== (body.product_inline === undefined), {
          error: "Give exactly one of product_id and product_inline.",
        }),
    },
    response: { body: z.object({ success: z.literal(true), subscription_id: z.string().optional() }) },
    handler: async ({ deps, auth, params, body }) => {
      const customer = customerOf(params);
      const choice = productForCustomer(
        auth.config,
        { productId: body.product_id, inline: body.product_inline, fromClient: false },
        customer,
      );
      await requireCustomerExists(deps.db, auth.project.id, customer);
      const { row } = await recordPurchase(deps.db, auth.config, auth.project.id, {
        customer,
        choice,
        priceId: null,
        quantity: body.quantity,
        source: "api_grant",
        testMode: false,
      });
      return { body: { success: true, ...(row.kind === "subscription" ? { subscription_id: row.id } : {}) } };
    },
  }),
  anyKey.delete("/payments/products/:customer_type/:customer_id/:product_id", {
    summary: "Cancel a customer's subscription to a product at the end of its period",
    request: {
      params: z.strictObject({ ...customerParams, product_id: z.string().min(1).max(200) }),
      query: z.strictObject({ subscription_id: z.string().max(100).optional() }),
    },
    response: { body: z.object({ success: z.literal(true) }) },
    handler: async ({ deps, auth, params, query }) => {
      const customer = await customerActedOn(deps.db, auth, params);
      await cancelSubscriptions(
        deps.db,
        auth.project.id,
        customer,
        params.product_id,
        query.subscription_id,
        (id) => cancelStripeSubscriptionAtPeriodEnd(deps, auth.project.id, id),
      );
      return { body: { success: true } };
    },
  }),
  anyKey.get("/payments/billing/:customer_type/:customer_id", {
    summary: "A customer's billing details with the payment provider",
    request: { params: z.strictObject(userOrTeamParams) },
    response: {
      body: wire<WireBilling>()(
        z.object({
          has_customer: z.boolean(),
          default_payment_method: z
            .object({
              id: z.string(),
              brand: z.string().nullable(),
              last4: z.string().nullable(),
              exp_month: z.number().nullable(),
              exp_year: z.number().nullable(),
            })
            .nullable(),
        }),
      ),
    },
    handler: async ({ deps, auth, params }) => {
      const customer = await customerActedOn(deps.db, auth, params);
      return { body: await billingOf(deps, auth.project.id, customer) };
    },
  }),
  anyKey.get("/payments/invoices/:customer_type/:customer_id", {
    summary: "A customer's subscription invoices, newest first",
    request: { params: z.strictObject(userOrTeamParams), query: pageQuery },
    response: {
      body: wire<WirePaginatedList<WireInvoice>>()(
        z.object({
          items: z.array(
            z.object({
              created_at_millis: z.number(),
              status: z.enum(["draft", "open", "paid", "uncollectible", "void"]).nullable(),
              amount_total: z.number(),
              hosted_invoice_url: z.string().nullable(),
            }),
          ),
          is_paginated: z.literal(true),
          pagination: z.object({ next_cursor: z.string().nullable() }),
        }),
      ),
    },
    handler: async ({ deps, auth, params, query }) => {
      const customer = await customerActedOn(deps.db, auth, params);
      const page = await invoicesOf(deps, auth.project.id, customer, query.limit, query.cursor);
      return {
        body: { items: page.items, is_paginated: true, pagination: { next_cursor: page.nextCursor } },
      };
    },
  }),
];
