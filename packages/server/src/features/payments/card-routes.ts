/**
 * A user's or team's card and plan switches (PROTOCOL-EXTRA §2.3): a card SetupIntent, making the card it saved
 * the default, and switching a subscription within its product line (switch.ts). Clients act on their own user or
 * on teams where they hold `team_admin`, as on every customer route.
 */
import { z } from "zod";
import { routeGroup } from "../../http/route.ts";
import { customerIdField } from "./customers.ts";
import { customerActedOn } from "./routes.ts";
import { createCardSetupIntent, setDefaultCardFromSetupIntent } from "./stripe-cards.ts";
import { switchSubscription } from "./switch.ts";

const tags = ["Payments"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });

const userOrTeamParams = z.strictObject({
  customer_type: z.enum(["user", "team"]),
  customer_id: customerIdField,
});
const productIdField = z.string().min(1).max(200);
const cardSchema = z.object({
  id: z.string(),
  brand: z.string().nullable(),
  last4: z.string().nullable(),
  exp_month: z.number().nullable(),
  exp_year: z.number().nullable(),
});

export const cardRoutes = [
  anyKey.post("/payments/payment-method/:customer_type/:customer_id/setup-intent", {
    summary: "Start saving a card for the customer: a Stripe SetupIntent for Stripe.js to confirm",
    request: { params: userOrTeamParams, body: z.strictObject({}).optional() },
    response: { body: z.object({ client_secret: z.string(), stripe_account_id: z.string() }) },
    handler: async ({ deps, auth, params }) => {
      const customer = await customerActedOn(deps.db, auth, params);
      return { body: await createCardSetupIntent(deps, auth.project.id, customer) };
    },
  }),
  anyKey.post("/payments/payment-method/:customer_type/:customer_id/set-default", {
    summary: "Make the card a succeeded SetupIntent saved the customer's default",
    request: {
      params: userOrTeamParams,
      body: z.strictObject({ setup_intent_id: z.string().min(1).max(255) }),
    },
    response: { body: z.object({ success: z.literal(true), default_payment_method: cardSchema }) },
    handler: async ({ deps, auth, params, body }) => {
      const customer = await customerActedOn(deps.db, auth, params);
      const card = await setDefaultCardFromSetupIntent(deps, auth.project.id, customer, body.setup_intent_id);
      return { body: { success: true as const, default_payment_method: card } };
    },
  }),
  anyKey.post("/payments/products/:customer_type/:customer_id/switch", {
    summary: "Switch a customer's subscription to another product of its product line",
    request: {
      params: userOrTeamParams,
      body: z.strictObject({
        from_product_id: productIdField,
        to_product_id: productIdField,
        price_id: z.string().min(1).max(200).optional(),
        quantity: z.number().int().min(1).max(1_000_000).optional(),
      }),
    },
    response: { body: z.object({ success: z.literal(true) }) },
    handler: async ({ deps, auth, params, body }) => {
      const customer = await customerActedOn(deps.db, auth, params);
      await switchSubscription(
        deps,
        { projectId: auth.project.id, config: auth.config, fromClient: auth.accessType === "client" },
        customer,
        {
          fromProductId: body.from_product_id,
          toProductId: body.to_product_id,
          priceId: body.price_id,
          quantity: body.quantity,
        },
      );
      return { body: { success: true as const } };
    },
  }),
];
