import { isKnownError } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_CATALOGUE } from "../../../server/src/features/payments/test-support.ts";
import { HttpStatusError } from "../http/errors.ts";
import { createRuntime, type Runtime } from "../http/runtime.ts";
import { appsFor, errorOf, signedUpClient } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";
import type { InlineProduct } from "./customers.ts";

/**
 * The SDK's payments methods (PROTOCOL-EXTRA §2.7) against a real server with a small catalogue: items of the
 * current user, server users, teams and custom customers; products held, granted, bought through a purchase URL
 * (completed in test mode, as the purchase page's button does) and cancelled; billing and invoices; and the errors
 * an app must be able to tell apart.
 */
const RETURN_URL = "http://localhost:3000/billing";
let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  gh = await startGatehouse();
  const project = await gh.createProject("SDK payments");
  await project.configure({
    ...TEST_CATALOGUE,
    "payments.items.api-calls": { displayName: "API calls", customerType: "custom" },
  });
  apps = appsFor(gh, project);
});
afterAll(() => gh?.close());

const signedIn = () => signedUpClient(apps, "buyer");

/** Completes a purchase URL's purchase as the purchase page's test-mode button does (no SDK method for it). */
async function buy(url: string, priceId: string, quantity = 1) {
  const fullCode = decodeURIComponent(new URL(url).pathname.split("/").pop()!);
  const response = await fetch(`${gh.baseUrl}/api/v1/internal/payments/test-mode-purchase-session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ full_code: fullCode, price_id: priceId, quantity }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

/** A runtime that records each request's method, path and query, to see what went over the wire. */
function queryRecorder() {
  const base = createRuntime();
  const sent: string[] = [];
  const runtime: Partial<Runtime> = {
    fetch: (input, init) => {
      const url = new URL(String(input));
      sent.push(`${init?.method ?? "GET"} ${url.pathname.replace(/^\/api\/v1/, "")}${url.search}`);
      return base.fetch(input, init);
    },
  };
  return { runtime, sent };
}

describe("items", () => {
  it("the current user reads its own items, with typed errors for unknown and mismatched items", async () => {
    const { user } = await signedIn();
    const credits = await user.getItem("credits");
    expect(credits).toEqual({ displayName: "Credits", quantity: 0, nonNegativeQuantity: 0 });
    // A client item cannot be changed, and a client grants nothing.
    expect("increaseQuantity" in credits).toBe(false);
    expect("grantProduct" in user).toBe(false);

    const unknown = await errorOf(user.getItem("gold"));
    expect(isKnownError(unknown, "ITEM_NOT_FOUND")).toBe(true);
    expect((unknown as { details: unknown }).details).toEqual({ item_id: "gold" });
    const mismatch = await errorOf(user.getItem("seats"));
    expect(isKnownError(mismatch, "ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH")).toBe(true);
  });

  it("a server changes quantities as the protocol says, and tryDecreaseQuantity refuses to go below zero", async () => {
    const { app, user } = await signedIn();
    const { runtime, sent } = queryRecorder();
    const server = apps.server({ runtime });
    const serverUser = (await server.getUser(user.id))!;
    const item = await serverUser.getItem("credits");
    expect(item).toMatchObject({ displayName: "Credits", quantity: 0 });

    await item.increaseQuantity(10);
    expect(await item.tryDecreaseQuantity(15)).toBe(false);
    expect((await serverUser.getItem("credits")).quantity).toBe(10);
    expect(await item.tryDecreaseQuantity(10)).toBe(true);
    // At zero nothing more can be taken.
    expect(await item.tryDecreaseQuantity(1)).toBe(false);
    await item.decreaseQuantity(5);
    const overdrawn = await serverUser.getItem("credits");
    expect(overdrawn).toMatchObject({ quantity: -5, nonNegativeQuantity: 0 });
    // The client sees the same quantity.
    expect((await (await app.getUser({ or: "throw" })).getItem("credits")).quantity).toBe(-5);

    const path = `/payments/items/user/${user.id}/credits/update-quantity`;
    expect(sent.filter((line) => line.startsWith("POST"))).toEqual([
      `POST ${path}?allow_negative=false`,
      `POST ${path}?allow_negative=false`,
      `POST ${path}?allow_negative=false`,
      `POST ${path}?allow_negative=false`,
      `POST ${path}?allow_negative=true`,
    ]);
  });

  it("the server app reads items by customer, and the current server user's items can be changed", async () => {
    const { app, user } = await signedIn();
    const server = apps.server();
    const item = await server.getItem({ userId: user.id, itemId: "credits" });
    await item.increaseQuantity(4);
    const tokens = {
      accessToken: (await app.getAccessToken())!,
      refreshToken: (await app.getRefreshToken())!,
    };
    const requestUser = await server.getUser({ tokenStore: tokens, or: "throw" });
    const own = await requestUser.getItem("credits");
    expect(own.quantity).toBe(4);
    await own.decreaseQuantity(1);
    expect((await app.getItem({ userId: user.id, itemId: "credits" })).quantity).toBe(3);
  });

  it("refuses a client another user's items, custom customers' items, and anything without a user", async () => {
    const { app } = await signedIn();
    const { user: other } = await signedIn();
    const theirs = await errorOf(app.getItem({ userId: other.id, itemId: "credits" }));
    expect(theirs).toBeInstanceOf(HttpStatusError);
    expect((theirs as HttpStatusError).status).toBe(403);
    const custom = await errorOf(app.getItem({ customCustomerId: "org:1", itemId: "api-calls" }));
    expect((custom as HttpStatusError).status).toBe(403);
    const signedOut = await errorOf(apps.client().getItem({ userId: other.id, itemId: "credits" }));
    expect(isKnownError(signedOut, "USER_AUTHENTICATION_REQUIRED")).toBe(true);
  });
});

describe("buying and holding products", () => {
  it("buys through a checkout URL, then sees the product and its items, and cancels the subscription", async () => {
    const { app, user } = await signedIn();
    const url = await user.createCheckoutUrl({ productId: "starter", returnUrl: RETURN_URL });
    expect(new URL(url).searchParams.get("return_url")).toBe(RETURN_URL);
    await buy(url, "monthly");

    expect(await user.getItem("credits")).toEqual({
      displayName: "Credits",
      quantity: 100,
      nonNegativeQuantity: 100,
    });
    const products = await user.listProducts();
    expect(products.nextCursor).toBeNull();
    expect(products).toHaveLength(1);
    expect(products[0]).toMatchObject({
      id: "starter",
      quantity: 1,
      displayName: "Starter",
      customerType: "user",
      isServerOnly: false,
      stackable: false,
      type: "subscription",
      subscription: { cancelAtPeriodEnd: false, isCancelable: true },
      switchOptions: [{ productId: "pro", displayName: "Pro", prices: { monthly: { USD: "29" } } }],
    });
    expect(products[0]!.subscription!.subscriptionId).toEqual(expect.any(String));
    expect(products[0]!.subscription!.currentPeriodEnd).toBeInstanceOf(Date);

    const again = await errorOf(user.createCheckoutUrl({ productId: "starter" }));
    expect(isKnownError(again, "PRODUCT_ALREADY_GRANTED")).toBe(true);
    const hidden = await errorOf(user.createCheckoutUrl({ productId: "hidden" }));
    expect(isKnownError(hidden, "PRODUCT_DOES_NOT_EXIST")).toBe(true);
    const untrusted = await errorOf(
      user.createCheckoutUrl({ productId: "lifetime", returnUrl: "https://evil.example/" }),
    );
    expect(isKnownError(untrusted, "REDIRECT_URL_NOT_WHITELISTED")).toBe(true);

    await app.cancelSubscription({ productId: "starter" });
    const [cancelled] = await user.listProducts();
    expect(cancelled!.subscription).toMatchObject({ cancelAtPeriodEnd: true, isCancelable: false });
    // The credits last until the period ends.
    expect((await user.getItem("credits")).quantity).toBe(100);
    const twice = await errorOf(app.cancelSubscription({ productId: "starter" }));
    expect((twice as HttpStatusError).status).toBe(400);
  });

  it("a server grants products to a user, pages through them, and reads billing and invoices", async () => {
    const { user } = await signedIn();
    const serverUser = (await apps.server().getUser(user.id))!;
    await serverUser.grantProduct({ productId: "credit-pack", quantity: 2 });
    await serverUser.grantProduct({ productId: "lifetime" });
    await serverUser.grantProduct({ productId: "hidden" });
    expect((await serverUser.getItem("credits")).quantity).toBe(100);

    const first = await serverUser.listProducts({ limit: 2 });
    expect(first.map((product) => [product.id, product.quantity, product.type])).toEqual([
      ["credit-pack", 2, "one_time"],
      ["hidden", 1, "one_time"],
    ]);
    expect(first[0]!.subscription).toBeNull();
    const second = await serverUser.listProducts({ limit: 2, cursor: first.nextCursor! });
    expect(second.map((product) => product.id)).toEqual(["lifetime"]);
    expect(second.nextCursor).toBeNull();
    // The client does not see server-only products.
    expect((await user.listProducts()).map((product) => product.id)).toEqual(["credit-pack", "lifetime"]);

    expect(await user.getBilling()).toEqual({ hasCustomer: false, defaultPaymentMethod: null });
    const invoices = await serverUser.listInvoices();
    expect([...invoices]).toEqual([]);
    expect(invoices.nextCursor).toBeNull();
    const wrongType = await errorOf(serverUser.grantProduct({ productId: "team-plan" }));
    expect(isKnownError(wrongType, "PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH")).toBe(true);
  });
});

describe("teams", () => {
  it("a team admin reads the team's items and products, and cancels its plan; a member without team_admin may not", async () => {
    const { app, user } = await signedIn();
    const { app: memberApp, user: member } = await signedIn();
    const server = apps.server();
    const created = await server.createTeam({ displayName: "Seat owners", creatorUserId: user.id });
    await created.addUser(member.id);
    await created.grantProduct({ productId: "team-plan" });
    expect((await created.getItem("seats")).quantity).toBe(5);

    const team = (await user.getTeam(created.id))!;
    expect(await team.getItem("seats")).toEqual({
      displayName: "Seats",
      quantity: 5,
      nonNegativeQuantity: 5,
    });
    const [plan] = await team.listProducts();
    expect(plan).toMatchObject({ id: "team-plan", customerType: "team", type: "subscription" });
    expect(await team.getBilling()).toEqual({ hasCustomer: false, defaultPaymentMethod: null });
    expect([...(await team.listInvoices())]).toEqual([]);
    const owned = await errorOf(team.createCheckoutUrl({ productId: "team-plan" }));
    expect(isKnownError(owned, "PRODUCT_ALREADY_GRANTED")).toBe(true);

    const memberTeam = (await member.getTeam(created.id))!;
    const refused = await errorOf(memberTeam.getItem("seats"));
    expect(isKnownError(refused, "TEAM_PERMISSION_REQUIRED")).toBe(true);
    const refusedCancel = await errorOf(
      memberApp.cancelSubscription({ productId: "team-plan", teamId: created.id }),
    );
    expect(isKnownError(refusedCancel, "TEAM_PERMISSION_REQUIRED")).toBe(true);

    await app.cancelSubscription({ productId: "team-plan", teamId: created.id });
    const [cancelled] = await app.listProducts({ teamId: created.id });
    expect(cancelled!.subscription).toMatchObject({ cancelAtPeriodEnd: true });
  });
});

describe("custom customers", () => {
  it("the server app reads, changes, grants and sells to a customer of the app's own", async () => {
    const server = apps.server();
    const customer = { customCustomerId: `org:${crypto.randomUUID()}` };
    const item = await server.getItem({ ...customer, itemId: "api-calls" });
    expect(item).toMatchObject({ displayName: "API calls", quantity: 0 });
    await item.increaseQuantity(3);

    const bundle: InlineProduct = {
      display_name: "Call bundle",
      customer_type: "custom",
      stackable: true,
      prices: { once: { USD: "10" } },
      included_items: { "api-calls": { quantity: 100, expires: "never" } },
    };
    await server.grantProduct({ ...customer, product: bundle });
    expect((await server.getItem({ ...customer, itemId: "api-calls" })).quantity).toBe(103);

    const url = await server.createCheckoutUrl({ ...customer, product: bundle, returnUrl: RETURN_URL });
    await buy(url, "once", 2);
    expect((await server.getItem({ ...customer, itemId: "api-calls" })).quantity).toBe(303);
    const products = await server.listProducts(customer);
    // Inline products are listed one per purchase (in the order of their purchase ids).
    const held = products.map((product) => [product.id, product.displayName, product.quantity]);
    expect(held.sort((x, y) => Number(x[2]) - Number(y[2]))).toEqual([
      [null, "Call bundle", 1],
      [null, "Call bundle", 2],
    ]);
    expect(products[0]).toMatchObject({ customerType: "custom", isServerOnly: true, stackable: true });

    const wrongItem = await errorOf(server.getItem({ ...customer, itemId: "credits" }));
    expect(isKnownError(wrongItem, "ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH")).toBe(true);
  });
});
