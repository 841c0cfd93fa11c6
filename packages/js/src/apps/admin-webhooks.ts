/**
 * The admin app's webhook calls (PROTOCOL-EXTRA §3.2), with the reference SDK's names: `getSvixToken` (the webhook
 * portal's token and URL, 24 hours) and `sendTestWebhook` (a `stack.test` message to one endpoint, now).
 */
import type { WireWebhookPortalToken, WireWebhookTestResult } from "@gatehouse/shared";
import { call, type Scope } from "../objects/scope.ts";
import { Result } from "../utils/result.ts";

export type WebhookPortalToken = {
  /** Authorizes the webhook portal's API (`authorization: Bearer <token>`) for this project, for 24 hours. */
  token: string;
  /** The portal page, with the token in its fragment. */
  url: string;
};

export function webhookMethods(scope: Scope) {
  return {
    async getSvixToken(): Promise<WebhookPortalToken> {
      const result = await call<WireWebhookPortalToken>(scope, "/webhooks/svix-token", {
        method: "POST",
        body: {},
      });
      return { token: result.token, url: result.url };
    },
    async sendTestWebhook(options: {
      endpointId: string;
    }): Promise<Result<undefined, { errorMessage: string }>> {
      const result = await call<WireWebhookTestResult>(scope, "/internal/send-test-webhook", {
        method: "POST",
        body: { endpoint_id: options.endpointId },
      });
      return result.success === true
        ? Result.ok(undefined)
        : Result.error({ errorMessage: String(result.error_message ?? "Unknown error") });
    },
  };
}
