import { isKnownError } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_CATALOGUE } from "../../../server/src/features/payments/test-support.ts";
import { HttpStatusError } from "../http/errors.ts";
import { appsFor, errorOf, signedUpClient } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";

/**
 * The purchase page's client methods against a real server in payments test mode: a purchase URL made for a
 * signed-in user is read and completed by another app that holds no session (as the end user's browser on the
 * purchase page does), and the errors the page words come back typed.
 */
const RETURN_URL = "http://localhost:3000/billing";
let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  gh = await startGatehouse();
  const project = await gh.createProject("Purchase page");
  await project.configure(TEST_CATALOGUE);
  apps = appsFor(gh, project);
});
afterAll(() => gh?.close());

const buyer = async () => (await signedUpClient(apps, "buyer")).user;

function codeOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.split("/").pop()!);
}

describe("the purchase page's calls", () => {
  it("reads the offer without server-only prices, completes it in test mode, and the code is then used", async () => {
    const user = await buyer();
    const fullCode = codeOf(
      await user.createCheckoutUrl({ productId: "credit-pack", returnUrl: RETURN_URL }),
    );
    const page = apps.client();

    const offer = await page.validatePurchaseCode(fullCode, { returnUrl: RETURN_URL });
    expect(offer).toMatchObject({
      projectDisplayName: "Purchase page",
      projectLogoUrl: null,
      alreadyBoughtNonStackable: false,
      conflictingProducts: [],
      testMode: true,
    });
    expect(offer.product.display_name).toBe("Credit pack");
    expect(offer.product.stackable).toBe(true);
    expect(Object.keys(offer.product.prices)).toEqual(["once"]);

    await page.completeTestModePurchase({ fullCode, priceId: "once", quantity: 3 });
    expect((await user.getItem("credits")).quantity).toBe(150);
    const again = await errorOf(page.validatePurchaseCode(fullCode));
    expect(isKnownError(again, "VERIFICATION_CODE_ALREADY_USED")).toBe(true);
  });

  it("names the plan a subscription replaces, and what is already held", async () => {
    const user = await buyer();
    const page = apps.client();
    const starter = codeOf(await user.createCheckoutUrl({ productId: "starter" }));
    await page.completeTestModePurchase({ fullCode: starter, priceId: "monthly" });

    const pro = await page.validatePurchaseCode(codeOf(await user.createCheckoutUrl({ productId: "pro" })));
    expect(pro.conflictingProducts).toEqual([{ productId: "starter", displayName: "Starter" }]);
    expect(Object.keys(pro.product.prices)).toEqual(["monthly"]);
    const lifetime = codeOf(await user.createCheckoutUrl({ productId: "lifetime" }));
    await page.completeTestModePurchase({ fullCode: lifetime, priceId: "once" });
    const held = await errorOf(user.createCheckoutUrl({ productId: "lifetime" }));
    expect(isKnownError(held, "PRODUCT_ALREADY_GRANTED")).toBe(true);
  });

  it("refuses unknown codes, untrusted return URLs, unknown prices and card checkout in test mode", async () => {
    const user = await buyer();
    const page = apps.client();
    const fullCode = codeOf(await user.createCheckoutUrl({ productId: "credit-pack" }));
    const [projectId] = fullCode.split("_");

    const unknown = await errorOf(page.validatePurchaseCode(`${projectId}_not-a-real-code`));
    expect(isKnownError(unknown, "VERIFICATION_CODE_NOT_FOUND")).toBe(true);
    const untrusted = await errorOf(
      page.validatePurchaseCode(fullCode, { returnUrl: "https://evil.example" }),
    );
    expect(isKnownError(untrusted, "REDIRECT_URL_NOT_WHITELISTED")).toBe(true);
    const noSuchPrice = await errorOf(page.completeTestModePurchase({ fullCode, priceId: "monthly" }));
    expect((noSuchPrice as HttpStatusError).status).toBeGreaterThanOrEqual(400);
    expect((noSuchPrice as HttpStatusError).status).toBeLessThan(500);
    const card = await errorOf(page.createPurchaseCheckoutUrl({ fullCode, priceId: "once" }));
    expect(card).toBeInstanceOf(HttpStatusError);
    expect((card as HttpStatusError).status).toBe(400);
    // The code is still open: nothing above used it.
    expect((await page.validatePurchaseCode(fullCode)).product.display_name).toBe("Credit pack");
  });
});
