/**
 * Products and the purchase flow (PROTOCOL-EXTRA §2.2-2.5) in test mode: purchase URLs, the codes the purchase page
 * reads, completing a purchase once however often it is replayed, the items a product includes (and their repeats
 * and expiry), plan switches within a product line, cancellation, server grants, and the owners' transaction list.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { setClock } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { paymentsApi, TEST_CATALOGUE } from "./test-support.ts";

let server: TestServer;
let project: TestProject;
let api: ReturnType<typeof paymentsApi>;

const DAY = 24 * 3600_000;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Shop Co");
  await project.configure(TEST_CATALOGUE);
  api = paymentsApi(server, project);
});
afterAll(async () => {
  await server.close();
});

async function products(
  customer: string,
  access: "server" | "client" = "server",
  extra: Record<string, string> = {},
) {
  const response = await api.call(access, "GET", `/payments/products/${customer}`, undefined, extra);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** A project selling TEST_CATALOGUE, a user of it, and a purchase URL's code for that user's "lifetime". */
async function shopWithPurchaseUrl(name: string) {
  const shop = await server.createProject(name);
  await shop.configure(TEST_CATALOGUE);
  const shopApi = paymentsApi(server, shop);
  const { user } = await createSignedInUser(server, shop.id);
  const { fullCode } = await shopApi.purchaseUrl({
    customer_type: "user",
    customer_id: user.id,
    product_id: "lifetime",
  });
  return { shop, shopApi, user, fullCode };
}

describe("buying through a purchase URL in test mode", () => {
  it("grants the product and its items once, however often the purchase is replayed", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const created = await api.call(
      "client",
      "POST",
      "/payments/purchases/create-purchase-url",
      {
        customer_type: "user",
        customer_id: user.id,
        product_id: "starter",
        return_url: "http://localhost:3000/billing",
      },
      { "x-stack-access-token": accessToken },
    );
    expect(created.status, created.text).toBe(200);
    const url = new URL(created.body.url);
    expect(url.pathname).toMatch(new RegExp(`^/purchase/${project.id}_[0-9a-z]{45}$`));
    expect(url.searchParams.get("return_url")).toBe("http://localhost:3000/billing");
    const fullCode = decodeURIComponent(url.pathname.split("/").pop()!);

    const validated = await server.request("/api/v1/payments/purchases/validate-code", {
      method: "POST",
      body: { full_code: fullCode, return_url: "http://localhost:3000/billing" },
    });
    expect(validated.status, validated.text).toBe(200);
    expect(validated.body).toMatchObject({
      project_id: project.id,
      project_display_name: "Shop Co",
      test_mode: true,
      already_bought_non_stackable: false,
      conflicting_products: [],
      product: {
        display_name: "Starter",
        customer_type: "user",
        prices: { monthly: { USD: "9", interval: [1, "month"] } },
      },
    });
    // The page reads its code on every load: 30 reads do not use the link up.
    for (let read = 0; read < 30; read++) {
      const again = await server.request("/api/v1/payments/purchases/validate-code", {
        method: "POST",
        body: { full_code: fullCode },
      });
      expect(again.status, again.text).toBe(200);
    }
    const check = await server.request(
      `/api/v1/payments/purchases/validate-code?full_code=${encodeURIComponent(fullCode)}`,
    );
    expect(check.body).toEqual({ valid: true });

    // A double click: both requests complete the one purchase.
    const [first, second] = await Promise.all([api.buy(fullCode, "monthly"), api.buy(fullCode, "monthly")]);
    expect([first.status, second.status].sort()).toContain(200);
    const replay = await api.buy(fullCode, "monthly");
    expect(replay.body.code).toBe("VERIFICATION_CODE_ALREADY_USED");
    expect(await api.quantity(`user/${user.id}`, "credits")).toBe(100);

    const owned = await products(`user/${user.id}`, "client", { "x-stack-access-token": accessToken });
    expect(owned.items).toHaveLength(1);
    expect(owned.items[0]).toMatchObject({
      id: "starter",
      quantity: 1,
      type: "subscription",
      subscription: { cancel_at_period_end: false, is_cancelable: true },
    });
    expect(owned.items[0].switch_options.map((option: { product_id: string }) => option.product_id)).toEqual([
      "pro",
    ]);
    const again = await api.call("server", "POST", "/payments/purchases/create-purchase-url", {
      customer_type: "user",
      customer_id: user.id,
      product_id: "starter",
    });
    expect(again.body.code).toBe("PRODUCT_ALREADY_GRANTED");
  });

  it("renews monthly credits that expire when repeated, and ends them with a cancelled plan", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const customer = `user/${user.id}`;
    const start = Date.now();
    const restore = setClock(start);
    try {
      const { fullCode } = await api.purchaseUrl({
        customer_type: "user",
        customer_id: user.id,
        product_id: "starter",
      });
      expect((await api.buy(fullCode, "monthly")).status).toBe(200);
      expect((await api.change(customer, "credits", -30, false)).status).toBe(200);
      expect(await api.quantity(customer, "credits")).toBe(70);
      setClock(start + 31 * DAY);
      expect(await api.quantity(customer, "credits")).toBe(100);

      const cancelled = await api.call("server", "DELETE", `/payments/products/${customer}/starter`);
      expect(cancelled.status, cancelled.text).toBe(200);
      const [held] = (await products(customer)).items;
      expect(held.subscription).toMatchObject({ cancel_at_period_end: true, is_cancelable: false });
      expect(new Date(held.subscription.current_period_end).getTime()).toBe(start + 60 * DAY);
      const twice = await api.call("server", "DELETE", `/payments/products/${customer}/starter`);
      expect(twice.status).toBe(400);

      setClock(start + 61 * DAY);
      expect(await api.quantity(customer, "credits")).toBe(0);
      expect((await products(customer)).items).toEqual([]);
    } finally {
      restore();
    }
  });

  it("switches plans within a product line, and keeps stackable one-time packs", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const customer = `user/${user.id}`;
    const starter = await api.purchaseUrl({
      customer_type: "user",
      customer_id: user.id,
      product_id: "starter",
    });
    expect((await api.buy(starter.fullCode, "monthly")).status).toBe(200);
    const pro = await api.purchaseUrl({ customer_type: "user", customer_id: user.id, product_id: "pro" });
    const validated = await server.request("/api/v1/payments/purchases/validate-code", {
      method: "POST",
      body: { full_code: pro.fullCode },
    });
    expect(validated.body.conflicting_products).toEqual([{ product_id: "starter", display_name: "Starter" }]);
    expect((await api.buy(pro.fullCode, "monthly")).status).toBe(200);
    expect((await products(customer)).items.map((item: { id: string }) => item.id)).toEqual(["pro"]);
    expect(await api.quantity(customer, "credits")).toBe(1000);

    const pack = await api.purchaseUrl({
      customer_type: "user",
      customer_id: user.id,
      product_id: "credit-pack",
    });
    expect((await api.buy(pack.fullCode, "once", 3)).status).toBe(200);
    expect(await api.quantity(customer, "credits")).toBe(1150);
    const listed = (await products(customer)).items;
    expect(
      listed.map((item: { id: string; quantity: number; type: string }) => [
        item.id,
        item.quantity,
        item.type,
      ]),
    ).toEqual([
      ["credit-pack", 3, "one_time"],
      ["pro", 1, "subscription"],
    ]);
    const firstPage = await api.call("server", "GET", `/payments/products/${customer}?limit=1`);
    expect(firstPage.body.items.map((item: { id: string }) => item.id)).toEqual(["credit-pack"]);
    expect(firstPage.body.pagination.next_cursor).toBe("credit-pack");
    const secondPage = await api.call(
      "server",
      "GET",
      `/payments/products/${customer}?limit=1&cursor=credit-pack`,
    );
    expect(secondPage.body.items.map((item: { id: string }) => item.id)).toEqual(["pro"]);
    expect(secondPage.body.pagination.next_cursor).toBeNull();
    // A cursor whose product is no longer held still continues from its place in the order.
    const afterGone = await api.call("server", "GET", `/payments/products/${customer}?cursor=lifetime`);
    expect(afterGone.body.items.map((item: { id: string }) => item.id)).toEqual(["pro"]);
    const oneTime = await api.call("server", "DELETE", `/payments/products/${customer}/credit-pack`);
    expect(oneTime.status).toBe(400);
    expect(oneTime.text).toMatch(/bought once/);
  });

  it("refuses what cannot be bought with the catalogue's errors", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const client = (body: Record<string, unknown>) =>
      api.call(
        "client",
        "POST",
        "/payments/purchases/create-purchase-url",
        { customer_type: "user", customer_id: user.id, ...body },
        {
          "x-stack-access-token": accessToken,
        },
      );
    expect((await client({ product_id: "nope" })).body).toMatchObject({
      code: "PRODUCT_DOES_NOT_EXIST",
      details: { product_id: "nope", context: null },
    });
    expect((await client({ product_id: "credits" })).body.details.context).toBe("item_exists");
    expect((await client({ product_id: "hidden" })).body.details.context).toBe("server_only");
    expect((await client({ product_id: "team-plan" })).body.code).toBe(
      "PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH",
    );
    expect(
      (await client({ product_id: "starter", return_url: "https://evil.example/steal" })).body.code,
    ).toBe("REDIRECT_URL_NOT_WHITELISTED");
    const inline = { display_name: "Inline", customer_type: "user", prices: { once: { USD: "1" } } };
    expect((await client({ product_inline: inline })).status).toBe(400);
    expect((await client({})).status).toBe(400);
    expect((await client({ product_id: "starter", product_inline: inline })).status).toBe(400);

    const { fullCode } = await api.purchaseUrl({
      customer_type: "user",
      customer_id: user.id,
      product_id: "lifetime",
    });
    expect((await api.buy(fullCode, "monthly")).status).toBe(400);
    expect((await api.buy(fullCode, "once", 2)).text).toMatch(/not stackable/);
    const badCode = await api.buy(`${project.id}_${"x".repeat(45)}`, "once");
    expect(badCode.body.code).toBe("VERIFICATION_CODE_NOT_FOUND");
    for (const code of ["", "no-underscore", `unknown-project_${"a".repeat(45)}`]) {
      const response = await server.request("/api/v1/payments/purchases/validate-code", {
        method: "POST",
        body: { full_code: code },
      });
      expect(response.status, code).toBeGreaterThanOrEqual(400);
      expect(response.status, code).toBeLessThan(500);
    }
    const card = await server.request("/api/v1/payments/purchases/purchase-session", {
      method: "POST",
      body: { full_code: fullCode, price_id: "once" },
    });
    expect(card.status).toBe(400);
    expect(card.text).toMatch(/test mode/);
    // The failed attempts did not spend the code.
    expect((await api.buy(fullCode, "once")).status).toBe(200);
  });

  it("sells nothing while new purchases are blocked, and needs test mode without a payment provider", async () => {
    const { shop, shopApi, user, fullCode } = await shopWithPurchaseUrl("Closed Co");
    await shop.configure({ "payments.blockNewPurchases": true });
    const blocked = await shopApi.call("server", "POST", "/payments/purchases/create-purchase-url", {
      customer_type: "user",
      customer_id: user.id,
      product_id: "lifetime",
    });
    expect([blocked.status, blocked.body.code]).toEqual([403, "NEW_PURCHASES_BLOCKED"]);
    expect((await shopApi.buy(fullCode, "once")).body.code).toBe("NEW_PURCHASES_BLOCKED");
    await shop.configure({ "payments.blockNewPurchases": false, "payments.testMode": false });
    expect((await shopApi.buy(fullCode, "once")).status).toBe(403);
    const noProvider = await shopApi.call("server", "POST", "/payments/purchases/create-purchase-url", {
      customer_type: "user",
      customer_id: user.id,
      product_id: "lifetime",
    });
    expect(noProvider.status).toBe(400);
    expect(noProvider.text).toMatch(/test mode/);
    expect(await shopApi.quantity(`user/${user.id}`, "credits")).toBe(0);
  });
});

describe("server grants", () => {
  it("grants catalogue and inline products without payment, to users and teams", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const team = await api.call("server", "POST", "/teams", {
      display_name: "Grantees",
      creator_user_id: user.id,
    });
    const teamId = team.body.id;
    const granted = await api.call("server", "POST", `/payments/products/team/${teamId}`, {
      product_id: "team-plan",
    });
    expect(granted.status, granted.text).toBe(200);
    expect(granted.body).toEqual({ success: true, subscription_id: expect.any(String) });
    expect(await api.quantity(`team/${teamId}`, "seats")).toBe(5);

    const inline = await api.call("server", "POST", `/payments/products/user/${user.id}`, {
      product_inline: {
        display_name: "Founder bonus",
        customer_type: "user",
        stackable: true,
        included_items: { credits: { quantity: 25, expires: "never" } },
      },
      quantity: 2,
    });
    expect(inline.body).toEqual({ success: true });
    expect(await api.quantity(`user/${user.id}`, "credits")).toBe(50);
    const [held] = (await products(`user/${user.id}`)).items;
    expect(held).toMatchObject({
      id: null,
      quantity: 2,
      product: { display_name: "Founder bonus", server_only: true },
    });
    // Server-only products are the server's business: a client listing its own products does not see them.
    const client = await createSignedInUser(server, project.id);
    await api.call("server", "POST", `/payments/products/user/${client.user.id}`, { product_id: "hidden" });
    const seen = await products(`user/${client.user.id}`, "client", {
      "x-stack-access-token": client.accessToken,
    });
    expect(seen.items).toEqual([]);

    const wrongType = await api.call("server", "POST", `/payments/products/user/${user.id}`, {
      product_id: "team-plan",
    });
    expect(wrongType.body.code).toBe("PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH");
    const badInline = await api.call("server", "POST", `/payments/products/user/${user.id}`, {
      product_inline: { display_name: "x", customer_type: "user", prices: { "bad id!": { USD: "1" } } },
    });
    expect([badInline.status, badInline.body.code]).toEqual([400, "SCHEMA_ERROR"]);
  });

  it("answers billing and invoices for customers with no payment provider, never 404", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const billing = await api.call("client", "GET", `/payments/billing/user/${user.id}`, undefined, {
      "x-stack-access-token": accessToken,
    });
    expect(billing.body).toEqual({ has_customer: false, default_payment_method: null });
    const invoices = await api.call("server", "GET", `/payments/invoices/user/${user.id}`);
    expect(invoices.body).toEqual({ items: [], is_paginated: true, pagination: { next_cursor: null } });
    const custom = await api.call("server", "GET", "/payments/billing/custom/org-1");
    expect(custom.status).toBe(400);
  });
});

describe("GET /internal/payments/transactions", () => {
  it("lists purchases and item changes newest first, page by page, filtered by type and customer", async () => {
    const { shopApi, user, fullCode } = await shopWithPurchaseUrl("Ledger Co");
    await shopApi.buy(fullCode, "once");
    for (const delta of [5, -2, 7])
      await shopApi.change(`user/${user.id}`, "credits", delta, false, { description: `d${delta}` });

    const list = (query: string) => shopApi.call("admin", "GET", `/internal/payments/transactions${query}`);
    const all = await list("");
    expect(all.status, all.text).toBe(200);
    expect(all.body.transactions.map((t: { type: string }) => t.type)).toEqual([
      "manual-item-quantity-change",
      "manual-item-quantity-change",
      "manual-item-quantity-change",
      "purchase",
    ]);
    expect(all.body.transactions[0].entries[0]).toMatchObject({
      type: "item_quantity_change",
      item_id: "credits",
      quantity: 7,
    });
    expect(all.body.transactions[3]).toMatchObject({
      test_mode: true,
      entries: [
        {
          type: "product_grant",
          product_id: "lifetime",
          quantity: 1,
          one_time_purchase_id: expect.any(String),
        },
      ],
    });

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.body.transactions.map((t: { id: string }) => t.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.body.transactions.map((t: { id: string }) => t.id));

    expect((await list("?type=purchase")).body.transactions).toHaveLength(1);
    expect((await list("?type=chargeback")).body.transactions).toEqual([]);
    expect((await list("?customer_type=team")).body.transactions).toEqual([]);
    expect((await list(`?customer_id=${user.id}`)).body.transactions).toHaveLength(4);
    expect((await list("?cursor=not-a-cursor")).status).toBe(400);
    expect((await list("?type=refund")).body.code).toBe("SCHEMA_ERROR");
    // Another project's owner sees none of it.
    expect(
      (await api.call("admin", "GET", `/internal/payments/transactions?customer_id=${user.id}`)).body
        .transactions,
    ).toEqual([]);
  });
});
