/**
 * The protocol's webhook routes (PROTOCOL-EXTRA §3.2): the portal token and the synchronous test message. The
 * portal's own API (endpoints, deliveries) is in portal-routes.ts.
 */
import type { WireWebhookPortalToken, WireWebhookTestResult } from "@gatehouse/shared";
import { z } from "zod";
import { randomUuid } from "../../crypto/index.ts";
import { routeGroup } from "../../http/route.ts";
import { wire } from "../../http/wire-schema.ts";
import { webhookAddressesGuarded } from "../../net/address-guard.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { getEndpoint, testMessageData } from "./endpoints.ts";
import { portalRoutes } from "./portal-routes.ts";
import { createPortalToken } from "./portal-token.ts";
import { sendMessage } from "./sender.ts";
import { openEndpointSecret } from "./signing.ts";

const tags = ["Webhooks"];
const admin = routeGroup({ tags, access: ["admin"] });

/** Where the portal page is served; the token travels in the fragment, so it never reaches a server log. */
export function portalUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/webhooks-portal#token=${encodeURIComponent(token)}`;
}

export const webhookRoutes = [
  admin.post("/webhooks/svix-token", {
    summary: "A 24-hour token for the project's webhook portal, and the portal's URL",
    response: {
      status: 201,
      body: wire<WireWebhookPortalToken>()(z.object({ token: z.string(), url: z.string() })),
    },
    handler: async ({ deps, auth }) => {
      const { token } = createPortalToken(deps.env, auth.project.id);
      return { status: 201, body: { token, url: portalUrl(deps.env.baseUrl, token) } };
    },
  }),
  admin.post("/internal/send-test-webhook", {
    summary: "Send a stack.test message to one endpoint now and report whether it answered with a 2xx",
    request: { body: z.strictObject({ endpoint_id: z.uuid() }) },
    response: {
      body: wire<WireWebhookTestResult>()(
        z.object({ success: z.boolean(), error_message: z.string().optional() }),
      ),
    },
    handler: async ({ deps, auth, body, clientIp }) => {
      const endpoint = await getEndpoint(deps, auth.project.id, body.endpoint_id);
      // One counter per project, whoever calls: each call is a request to an address the project chose.
      await consumeRateLimit(
        rateLimitScope(deps, auth, clientIp),
        RATE_LIMITS.testWebhookPerProject,
        "project",
      );
      const outcome = await sendMessage(
        {
          url: endpoint.url,
          secret: openEndpointSecret(deps.env, endpoint.secretEncrypted),
          id: randomUuid(),
          body: JSON.stringify({ type: "stack.test", data: testMessageData(endpoint.url) }),
        },
        { guard: webhookAddressesGuarded(deps.env) },
      );
      if (outcome.ok) return { body: { success: true } };
      const error_message =
        outcome.statusCode === null
          ? outcome.response
          : `The endpoint answered ${outcome.statusCode}${outcome.response ? `: ${outcome.response}` : "."}`;
      return { body: { success: false, error_message } };
    },
  }),
  ...portalRoutes,
];
