/**
 * The purchase page's calls (PROTOCOL-EXTRA §2.4): what a purchase code offers, and paying for it. The full code
 * (`<project id>_<code>`, from the URL `create-purchase-url` made) is the credential: these routes are public, the
 * server finds the project from the code's prefix, and no session goes with them, whoever is signed in. A Gatehouse
 * extension of the client app; the reference's own page calls these routes by hand.
 */
import type { WirePurchaseOffer, WirePurchaseUrl } from "@gatehouse/shared";
import type { InlineProduct } from "../objects/customers.ts";
import type { AppContext } from "./context.ts";

/** What a purchase code offers its end user. */
export type PurchaseOffer = {
  product: InlineProduct & Required<Pick<InlineProduct, "prices" | "included_items" | "stackable">>;
  projectId: string;
  projectDisplayName: string;
  projectLogoUrl: string | null;
  /** The customer already holds this product, which is not stackable: nothing more to buy. */
  alreadyBoughtNonStackable: boolean;
  /** Subscriptions of the same product line that this purchase ends. */
  conflictingProducts: { productId: string; displayName: string }[];
  /** A test-mode project: `completeTestModePurchase` grants the product with no payment. */
  testMode: boolean;
  /** Outside test mode: whether the project's Stripe account can take card payments. */
  chargesEnabled: boolean;
};

/** One purchase of the code's product: a price of it, and how many (stackable products only take more than 1). */
export type PurchaseChoice = { fullCode: string; priceId: string; quantity?: number };

function post<T>(ctx: AppContext, path: string, body: Record<string, unknown>): Promise<T> {
  return ctx.call<T>(path, { method: "POST", body, accessType: "client", session: null });
}

export async function validatePurchaseCode(
  ctx: AppContext,
  fullCode: string,
  options: { returnUrl?: string | null } = {},
): Promise<PurchaseOffer> {
  const json = await post<WirePurchaseOffer>(ctx, "/payments/purchases/validate-code", {
    full_code: fullCode,
    ...(options.returnUrl ? { return_url: options.returnUrl } : {}),
  });
  return {
    product: json.product as PurchaseOffer["product"],
    projectId: json.project_id,
    projectDisplayName: json.project_display_name,
    projectLogoUrl: json.project_logo_url,
    alreadyBoughtNonStackable: json.already_bought_non_stackable,
    conflictingProducts: json.conflicting_products.map((conflict) => ({
      productId: conflict.product_id,
      displayName: conflict.display_name,
    })),
    testMode: json.test_mode,
    chargesEnabled: json.charges_enabled,
  };
}

/** Test mode only: grants the chosen price at once, with no payment (once per code, however often it is called). */
export async function completeTestModePurchase(ctx: AppContext, choice: PurchaseChoice): Promise<void> {
  await post(ctx, "/internal/payments/test-mode-purchase-session", {
    full_code: choice.fullCode,
    price_id: choice.priceId,
    quantity: choice.quantity ?? 1,
  });
}

/** Outside test mode: the URL of Stripe Checkout's page for the chosen price, which returns to `returnUrl` paid. */
export async function createPurchaseCheckoutUrl(
  ctx: AppContext,
  choice: PurchaseChoice & { returnUrl?: string | null },
): Promise<string> {
  const json = await post<WirePurchaseUrl>(ctx, "/payments/purchases/checkout-session", {
    full_code: choice.fullCode,
    price_id: choice.priceId,
    quantity: choice.quantity ?? 1,
    ...(choice.returnUrl ? { return_url: choice.returnUrl } : {}),
  });
  return json.url;
}
