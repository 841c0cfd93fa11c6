/** Test support for the payments tests: a project with a small catalogue, and requests on its customer routes. */
import { expect } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { type StripeStandIn, startStripeStandIn } from "../../testing/stripe-stand-in.ts";

import { TEST_CATALOGUE } from "./test-catalogue.ts";

export { TEST_CATALOGUE };

export function paymentsApi(server: TestServer, project: TestProject) {
  const call = (
    access: "client" | "server" | "admin",
    method: string,
    path: string,
    body?: unknown,
    extra: Record<string, string> = {},
  ) => server.request(`/api/v1${path}`, { method, headers: project.headers(access, extra), body });
  return {
    call,
    quantity: async (customer: string, itemId: string): Promise<number> => {
      const response = await call("server", "GET", `/payments/items/${customer}/${itemId}`);
      if (response.status !== 200) throw new Error(`item read failed: ${response.status} ${response.text}`);
      return response.body.quantity;
    },
    change: (customer: string, itemId: string, delta: number, allowNegative: boolean, extra: object = {}) =>
      call(
        "server",
        "POST",
        `/payments/items/${customer}/${itemId}/update-quantity?allow_negative=${allowNegative}`,
        {
          delta,
          ...extra,
        },
      ),
    /** A purchase URL made with server access, and its full code (the last path segment). */
    purchaseUrl: async (body: Record<string, unknown>) => {
      const response = await call("server", "POST", "/payments/purchases/create-purchase-url", body);
      if (response.status !== 200)
        throw new Error(`create-purchase-url failed: ${response.status} ${response.text}`);
      const url = new URL(response.body.url);
      return { url, fullCode: decodeURIComponent(url.pathname.split("/").pop()!) };
    },
    buy: (fullCode: string, priceId: string, quantity = 1) =>
      server.request("/api/v1/internal/payments/test-mode-purchase-session", {
        method: "POST",
        body: { full_code: fullCode, price_id: priceId, quantity },
      }),
  };
}

/**
 * A test server talking to a fresh Stripe stand-in, whose events go to the server's webhook route, and a project
 * with the test catalogue. `close` stops both.
 */
export async function startStripeTestServer(projectName: string) {
  let server: TestServer | undefined;
  const stripe: StripeStandIn = await startStripeStandIn({
    deliver: async (body, signature) =>
      (
        await server!.request("/api/v1/integrations/stripe/webhooks", {
          method: "POST",
          headers: { "content-type": "application/json", "stripe-signature": signature },
          body,
        })
      ).status,
  });
  server = await createTestServer({
    stripe: { secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, apiUrl: stripe.url },
  });
  const project = await server.createProject(projectName);
  await project.configure(TEST_CATALOGUE);
  return {
    stripe,
    server,
    project,
    api: paymentsApi(server, project),
    close: async () => {
      await server.close();
      await stripe.close();
    },
  };
}

/** Paying for a product through the purchase page's "Pay with card": purchase codes and Stripe Checkout sessions. */
export function stripeCheckouts(server: TestServer, api: ReturnType<typeof paymentsApi>) {
  /** A purchase code for a product, sold to the user. */
  const purchaseCode = async (userId: string, productId: string): Promise<string> => {
    const { fullCode } = await api.purchaseUrl({
      customer_type: "user",
      customer_id: userId,
      product_id: productId,
    });
    return fullCode;
  };
  /** What the purchase page's "Pay with card" sends, whatever the answer. */
  const startCheckout = (fullCode: string, priceId: string, quantity = 1) =>
    server.request("/api/v1/payments/purchases/checkout-session", {
      method: "POST",
      body: { full_code: fullCode, price_id: priceId, quantity, return_url: "http://localhost:3000/thanks" },
    });
  /** A started checkout of the product for the user: its code, the session's id and its page. */
  const checkout = async (userId: string, productId: string, priceId: string, quantity = 1) => {
    const fullCode = await purchaseCode(userId, productId);
    const started = await startCheckout(fullCode, priceId, quantity);
    expect(started.status, started.text).toBe(200);
    const sessionId = new URL(started.body.url).pathname.split("/").pop()!;
    return { fullCode, sessionId, url: started.body.url as string };
  };
  return { purchaseCode, startCheckout, checkout };
}
