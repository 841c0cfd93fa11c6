/**
 * Purchase URLs (PROTOCOL-EXTRA §2.4): `create-purchase-url` stores a one-time code, valid 24 hours, holding whom
 * the purchase is for and the product as it was offered; the purchase page (`/purchase/<project id>_<code>` on this
 * server, a page of the dashboard app) reads it back and completes it. The code is the page's credential: only its
 * SHA-256 is stored, and it is spent by the purchase it starts.
 */
import { knownError } from "@gatehouse/shared";
import type { RenderedConfig } from "../../config/index.ts";
import { isUrlTrustedByProject } from "../../config/trusted-urls.ts";
import { SECURE_TOKEN_LENGTH } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import { StatusError } from "../../http/status-error.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import type { ProjectRow } from "../projects/schema.ts";
import { findProject } from "../projects/service.ts";
import type { VerificationCodeRow } from "../verification-codes/schema.ts";
import { createVerificationCode, openCode } from "../verification-codes/service.ts";
import type { Customer, InlineProduct } from "./catalogue.ts";
import { listCustomerPurchases, ownedQuantity, type PurchaseAttempt } from "./purchases.ts";

export const PURCHASE_CODE_LIFETIME_MS = 24 * 3600 * 1000;

/** What a purchase code holds (snake_case: it is stored as JSON). */
export type PurchaseCodeData = {
  customer_type: Customer["type"];
  customer_id: string;
  product_id: string | null;
  product: InlineProduct;
};

export async function createPurchaseUrl(
  deps: Pick<AppDeps, "db" | "env">,
  projectId: string,
  data: PurchaseCodeData,
  returnUrl: string | undefined,
): Promise<string> {
  const { code } = await createVerificationCode(deps.db, {
    projectId,
    purpose: "purchase",
    data,
    lifetimeMs: PURCHASE_CODE_LIFETIME_MS,
  });
  const url = new URL(`/purchase/${encodeURIComponent(fullCode(projectId, code))}`, deps.env.baseUrl);
  if (returnUrl !== undefined) url.searchParams.set("return_url", returnUrl);
  return url.toString();
}

export function fullCode(projectId: string, code: string): string {
  return `${projectId}_${code}`;
}

/** `<project id>_<code>`: the code has no underscore, so the last one separates them. */
export function splitFullCode(value: string): { projectId: string; code: string } | null {
  const at = value.lastIndexOf("_");
  if (at <= 0) return null;
  const code = value.slice(at + 1);
  if (code.length !== SECURE_TOKEN_LENGTH) return null;
  return { projectId: value.slice(0, at), code };
}

export type OpenPurchase = {
  project: ProjectRow;
  config: RenderedConfig;
  codeRow: VerificationCodeRow;
  data: PurchaseCodeData;
};

/** The project of a full code, or VERIFICATION_CODE_NOT_FOUND: a code of an unknown project is simply unknown. */
export async function projectOfFullCode(
  deps: Pick<AppDeps, "db" | "env">,
  value: string,
): Promise<{ project: ProjectRow; config: RenderedConfig; code: string }> {
  const parts = splitFullCode(value);
  const project = parts ? await findProject(deps.db, parts.projectId) : null;
  if (!parts || !project) throw knownError("VERIFICATION_CODE_NOT_FOUND");
  return { project, config: await getRenderedConfig(deps, project.id), code: parts.code };
}

/**
 * Reads a purchase code without spending it: VERIFICATION_CODE_NOT_FOUND, _EXPIRED or _ALREADY_USED otherwise. A
 * code's attempts are not counted, unlike a typed code's: the page reads its code on every load, and only the whole
 * 45 random characters match (a guess reveals nothing). Each read counts towards the caller's address's
 * `purchaseCodePerIp` in the code's project, before the code is looked at, so guessing meets a 429.
 */
export async function openPurchaseCode(
  deps: Pick<AppDeps, "db" | "env" | "observability">,
  value: string,
  clientIp: string | null,
): Promise<OpenPurchase> {
  const { project, config, code } = await projectOfFullCode(deps, value);
  await consumeRateLimit(
    rateLimitScope(deps, { project, config }, clientIp),
    RATE_LIMITS.purchaseCodePerIp,
    clientIp,
  );
  const codeRow = await openCode(deps.db, { projectId: project.id, purpose: "purchase", code });
  return { project, config, codeRow, data: codeRow.data as PurchaseCodeData };
}

/**
 * The purchase a code and a chosen price make: plain 400s for a price the product does not have (or only a server may
 * sell: servers grant those with POST /payments/products), or an add-on without the product it adds to.
 */
export async function purchaseAttemptOfCode(
  db: Database,
  open: OpenPurchase,
  priceId: string,
  quantity: number,
): Promise<PurchaseAttempt & { price: InlineProduct["prices"][string] }> {
  const { config, data } = open;
  const price = Object.hasOwn(data.product.prices, priceId) ? data.product.prices[priceId] : undefined;
  // The purchase page is an end user's: prices only a server may sell are not on it, whoever made the link.
  if (!price || price.server_only) {
    throw new StatusError(400, `The product has no price "${priceId}".`);
  }
  const customer: Customer = { type: data.customer_type, id: data.customer_id };
  const catalogue = data.product_id === null ? undefined : config.payments.products[data.product_id];
  if (catalogue?.isAddOnTo) {
    const held = await listCustomerPurchases(db, open.project.id, customer);
    const now = new Date();
    if (!Object.keys(catalogue.isAddOnTo).some((base) => ownedQuantity(held, base, now) > 0)) {
      throw new StatusError(400, "This add-on can only be bought together with the product it adds to.");
    }
  }
  return {
    customer,
    choice: { productId: data.product_id, product: data.product, lineId: catalogue?.productLineId ?? null },
    priceId,
    quantity,
    price,
  };
}

/** NEW_PURCHASES_BLOCKED while the project blocks new purchases. */
export function requireOpenForPurchases(config: RenderedConfig): void {
  if (config.payments.blockNewPurchases) throw knownError("NEW_PURCHASES_BLOCKED");
}

/** REDIRECT_URL_NOT_WHITELISTED unless the project trusts the return URL (absent is fine). */
export function checkReturnUrl(config: RenderedConfig, returnUrl: string | undefined): void {
  if (returnUrl !== undefined && !isUrlTrustedByProject(config, returnUrl)) {
    throw knownError("REDIRECT_URL_NOT_WHITELISTED");
  }
}
