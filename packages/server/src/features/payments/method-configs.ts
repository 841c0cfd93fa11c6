/**
 * `GET|PATCH /internal/payments/method-configs` (PROTOCOL-EXTRA §2.5): which payment methods the purchase page
 * offers, as Stripe keeps them in the connected account's default payment method configuration. Stripe decides what
 * is available; the owner turns methods on or off where Stripe lets them (`overridable`).
 */
import type Stripe from "stripe";
import { z } from "zod";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { stripeClient } from "./stripe.ts";
import { connectedAccountOf } from "./stripe-cards.ts";

const tags = ["Payments"];
const admin = routeGroup({ tags, access: ["admin"] });

/** Names of the methods whose id does not read well title-cased. */
const METHOD_NAMES: Record<string, string> = {
  card: "Cards",
  apple_pay: "Apple Pay",
  google_pay: "Google Pay",
  link: "Link",
  us_bank_account: "ACH Direct Debit",
  sepa_debit: "SEPA Direct Debit",
  acss_debit: "Pre-authorized debit",
  au_becs_debit: "BECS Direct Debit",
  bacs_debit: "Bacs Direct Debit",
  afterpay_clearpay: "Afterpay / Clearpay",
  ideal: "iDEAL",
  p24: "Przelewy24",
  eps: "EPS",
  fpx: "FPX",
  oxxo: "OXXO",
  wechat_pay: "WeChat Pay",
};

const methodName = (id: string) =>
  METHOD_NAMES[id] ?? id.replace(/_/g, " ").replace(/\b[a-z]/g, (letter) => letter.toUpperCase());

type MethodSetting = {
  available: boolean;
  display_preference: { overridable: boolean | null; preference: string; value: string };
};

function isMethodSetting(value: unknown): value is MethodSetting {
  const setting = value as Partial<MethodSetting> | null;
  return (
    typeof setting === "object" &&
    setting !== null &&
    typeof setting.available === "boolean" &&
    typeof setting.display_preference?.value === "string"
  );
}

/** The account's default configuration (Stripe makes one per account), or the first there is. */
async function accountConfig(stripe: Stripe, accountId: string): Promise<Stripe.PaymentMethodConfiguration> {
  const list = await stripe.paymentMethodConfigurations.list({ limit: 100 }, { stripeAccount: accountId });
  const config = list.data.find((each) => each.is_default) ?? list.data[0];
  if (!config) throw new StatusError(400, "Stripe has no payment method configuration for this account.");
  return config;
}

const methodIdField = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, { error: "not a payment method id" });

export const methodConfigRoutes = [
  admin.get("/internal/payments/method-configs", {
    summary: "The payment methods Stripe offers on the project's account, and which are turned on",
    response: {
      body: z.object({
        config_id: z.string(),
        methods: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            enabled: z.boolean(),
            available: z.boolean(),
            overridable: z.boolean(),
          }),
        ),
      }),
    },
    handler: async ({ deps, auth }) => {
      const accountId = await connectedAccountOf(deps.db, auth.project.id);
      const config = await accountConfig(await stripeClient(deps.env), accountId);
      const methods = Object.entries(config)
        .filter((entry): entry is [string, MethodSetting] => isMethodSetting(entry[1]))
        .map(([id, setting]) => ({
          id,
          name: methodName(id),
          enabled: setting.display_preference.value === "on",
          available: setting.available,
          overridable: setting.display_preference.overridable === true,
        }));
      return { body: { config_id: config.id, methods } };
    },
  }),
  admin.patch("/internal/payments/method-configs", {
    summary: "Turn payment methods on or off on the project's Stripe account",
    request: {
      body: z.strictObject({
        config_id: z.string().min(1).max(255),
        updates: z.record(methodIdField, z.enum(["on", "off"])),
      }),
    },
    response: { body: z.object({ success: z.literal(true) }) },
    handler: async ({ deps, auth, body }) => {
      const accountId = await connectedAccountOf(deps.db, auth.project.id);
      const stripe = await stripeClient(deps.env);
      const config = await accountConfig(stripe, accountId);
      // Only the account's own configuration: an id from elsewhere is not the owner's to change.
      if (config.id !== body.config_id) {
        throw new StatusError(400, "This is not the account's payment method configuration.");
      }
      const changes = Object.fromEntries(
        Object.entries(body.updates).map(([id, preference]) => [id, { display_preference: { preference } }]),
      );
      await stripe.paymentMethodConfigurations.update(
        body.config_id,
        changes as Stripe.PaymentMethodConfigurationUpdateParams,
        { stripeAccount: accountId },
      );
      return { body: { success: true as const } };
    },
  }),
];
