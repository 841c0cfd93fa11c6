/**
 * The Stripe stand-in's wire (stripe-stand-in.ts holds its API): Stripe's form encoding, JSON answers and 404 shape,
 * webhook events signed and delivered as Stripe does, and the two pages a browser opens on it (Connect onboarding
 * and Checkout).
 */
import { createHmac } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { newId, now, type StripeObject } from "./stripe-stand-in-billing.ts";

/** `a[b][0][c]=v` form fields as nested objects; objects whose keys are all indexes become arrays. */
export function parseStripeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.replace(/\]/g, "").split("[");
    let node = root;
    path.forEach((segment, index) => {
      if (index === path.length - 1) {
        node[segment] = value;
        return;
      }
      node[segment] ??= {};
      node = node[segment] as Record<string, unknown>;
    });
  }
  const arrays = (value: unknown): unknown => {
    if (typeof value !== "object" || value === null) return value;
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, arrays(v)] as const);
    if (entries.length > 0 && entries.every(([k]) => /^\d+$/.test(k))) {
      return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v);
    }
    return Object.fromEntries(entries);
  };
  return arrays(root) as Record<string, unknown>;
}

export type StripeEvent = {
  id: string;
  object: "event";
  type: string;
  account: string;
  created: number;
  livemode: false;
  api_version: string;
  data: { object: Record<string, unknown> };
};

/** Signs and delivers webhook events the way Stripe does, keeping each with the status the webhook answered. */
export function eventDelivery(options: {
  webhookSecret: string;
  events: Array<{ event: StripeEvent; status: number }>;
  deliver?: (body: string, signature: string) => Promise<number>;
  webhookUrl?: string;
}) {
  const { webhookSecret, events } = options;
  const sign = (body: string, secret = webhookSecret) => {
    const t = now();
    const v1 = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
    return `t=${t},v1=${v1}`;
  };

  const deliver =
    options.deliver ??
    (async (body: string, signature: string) => {
      if (!options.webhookUrl) throw new Error("the Stripe stand-in has no webhook URL to send events to");
      const response = await fetch(options.webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": signature },
        body,
      });
      return response.status;
    });

  /** Deliveries not yet answered: Stripe sends some events after answering the request that caused them. */
  const inFlight = new Set<Promise<number>>();
  const post = (event: StripeEvent) => {
    const body = JSON.stringify(event);
    const delivery = deliver(body, sign(body)).then((status) => {
      events.push({ event, status });
      return status;
    });
    inFlight.add(delivery);
    return delivery.finally(() => inFlight.delete(delivery));
  };

  const send = (type: string, account: string, object: Record<string, unknown>) =>
    post({
      id: newId("evt"),
      object: "event",
      type,
      account,
      created: now(),
      livemode: false,
      api_version: "2025-01-01",
      data: { object: structuredClone(object) },
    });

  /** Resolves once every event sent so far was answered. */
  const settled = async () => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };
  return { sign, post, send, settled };
}

export const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json", "request-id": newId("req") });
  res.end(JSON.stringify(body));
};

export const notFound = (res: ServerResponse, what: string) =>
  json(res, 404, {
    error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${what}` },
  });

export const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      text += chunk;
    });
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });

/** The pages a browser opens: Connect onboarding (approves the account at once) and a Checkout page with a Pay button. */
export function standInPages(state: {
  accounts: Map<string, StripeObject>;
  sessions: Map<string, StripeObject>;
  pay: (sessionId: string) => Promise<void>;
}) {
  const { accounts, sessions, pay } = state;
  return async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const onboarding = /^\/connect\/onboarding\/([^/]+)$/.exec(url.pathname);
    const checkout = /^\/checkout\/([^/]+)(\/pay)?$/.exec(url.pathname);
    if (onboarding) {
      const match = onboarding;
      const found = accounts.get(match[1]!);
      if (!found) return notFound(res, "account");
      Object.assign(found, { charges_enabled: true, details_submitted: true, payouts_enabled: true });
      res.writeHead(303, { location: url.searchParams.get("return_url") ?? "/" });
      return res.end();
    }
    if (checkout) {
      const match = checkout;
      const session = sessions.get(match[1]!);
      if (!session) return notFound(res, "checkout session");
      if (req.method === "POST" && match[2]) {
        await pay(session.id);
        res.writeHead(303, { location: session.success_url as string });
        return res.end();
      }
      const line = (session.line_items as Array<Record<string, any>>)[0]!;
      const cents = Number(line.price_data.unit_amount) * Number(line.quantity ?? 1);
      const name = String(line.price_data.product_data?.name ?? "").replace(/[<>&"]/g, "");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(
        `<!doctype html><title>Stripe stand-in checkout</title><h1>${name}</h1>` +
          `<p data-testid="amount">$${(cents / 100).toFixed(2)}${session.mode === "subscription" ? " per period" : ""}</p>` +
          `<form method="post" action="/checkout/${session.id}/pay"><button type="submit">Pay</button></form>`,
      );
    }
    return notFound(res, "page");
  };
}
