/**
 * The webhook portal's API (Gatehouse's own, `/webhooks-portal/…`): a project's endpoints, their signing secrets,
 * their deliveries with the attempt log, resending, test events. Two ways to call it, one set of methods:
 *
 * - `admin.webhookPortal` on an admin app (the admin key or a project owner's session);
 * - `openWebhookPortal({baseUrl, token})` with the token of `getSvixToken()` alone, for someone without an account
 *   (the portal page at `/webhooks-portal#token=…`). The token names its project and opens nothing else.
 */

import type {
  WireItems,
  WireWebhookDelivery,
  WireWebhookEndpoint,
  WireWebhookEndpointCreated,
  WireWebhookEventType,
  WireWebhookSecret,
} from "@gatehouse/shared";
import { KnownError, type KnownErrorJson } from "@gatehouse/shared";
import { HttpStatusError, InvalidServerResponseError } from "../http/errors.ts";
import { call, dateOrNull, defined, type Scope, seg, withQuery } from "../objects/scope.ts";

export type WebhookEventTypeInfo = { name: string; description: string };

export type WebhookEndpoint = {
  id: string;
  url: string;
  description: string;
  /** Empty: every event type. */
  eventTypes: string[];
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
};

/** What creating an endpoint answers: the signing secret (`whsec_…`) is in this answer only. */
export type WebhookEndpointFirstView = WebhookEndpoint & { secret: string };

export type WebhookEndpointCreateOptions = {
  url: string;
  description?: string;
  /** Empty or left out: every event type. */
  eventTypes?: string[];
  enabled?: boolean;
};

export type WebhookEndpointUpdateOptions = Partial<WebhookEndpointCreateOptions>;

export type WebhookDeliveryStatus = "pending" | "sending" | "succeeded" | "failed";

export type WebhookDeliveryAttempt = {
  attempt: number;
  at: Date;
  /** Null when no answer came (refused connection, timeout, blocked address). */
  statusCode: number | null;
  /** The first characters of the answer, or the error. */
  response: string;
  durationMs: number;
};

export type WebhookDelivery = {
  id: string;
  endpointId: string;
  /** The message id (`webhook-id`), the same on every attempt. */
  eventId: string;
  eventType: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  /** When the next attempt is due; null once finished. */
  nextAttemptAt: Date | null;
  createdAt: Date;
  finishedAt: Date | null;
  /** The newest attempts, oldest first. */
  attemptLog: WebhookDeliveryAttempt[];
};

export type WebhookPortal = {
  listEventTypes(): Promise<WebhookEventTypeInfo[]>;
  listEndpoints(): Promise<WebhookEndpoint[]>;
  getEndpoint(id: string): Promise<WebhookEndpoint>;
  createEndpoint(options: WebhookEndpointCreateOptions): Promise<WebhookEndpointFirstView>;
  updateEndpoint(id: string, options: WebhookEndpointUpdateOptions): Promise<WebhookEndpoint>;
  deleteEndpoint(id: string): Promise<void>;
  /** A new signing secret, in this answer only; the old one stops being used at once. */
  rotateEndpointSecret(id: string): Promise<{ secret: string }>;
  /** Newest first. */
  listDeliveries(endpointId: string, options?: { limit?: number }): Promise<WebhookDelivery[]>;
  /** Queues a `stack.test` message to the endpoint; it is listed with its deliveries. */
  sendTestEvent(endpointId: string): Promise<WebhookDelivery>;
  /** Sends a finished delivery again (same message id). */
  resendDelivery(deliveryId: string): Promise<WebhookDelivery>;
};

/** One portal call; `T` is the route's wire type. */
type Send = <T>(path: string, options?: { method?: string; body?: unknown }) => Promise<T>;

function endpointFromJson(json: WireWebhookEndpoint): WebhookEndpoint {
  return {
    id: json.id,
    url: json.url,
    description: json.description ?? "",
    eventTypes: json.event_types ?? [],
    enabled: json.enabled,
    createdAt: new Date(json.created_at_millis),
    updatedAt: new Date(json.updated_at_millis),
  };
}

function deliveryFromJson(json: WireWebhookDelivery): WebhookDelivery {
  return {
    id: json.id,
    endpointId: json.endpoint_id,
    eventId: json.event_id,
    eventType: json.event_type,
    status: json.status,
    attempts: json.attempts,
    lastStatusCode: json.last_status_code ?? null,
    nextAttemptAt: dateOrNull(json.next_attempt_at_millis),
    createdAt: new Date(json.created_at_millis),
    finishedAt: dateOrNull(json.finished_at_millis),
    attemptLog: (json.attempt_log ?? []).map((attempt) => ({
      attempt: attempt.attempt,
      at: new Date(attempt.at_millis),
      statusCode: attempt.status_code ?? null,
      response: attempt.response ?? "",
      durationMs: attempt.duration_ms,
    })),
  };
}

function endpointBody(options: WebhookEndpointUpdateOptions) {
  return defined({
    url: options.url,
    description: options.description,
    event_types: options.eventTypes,
    enabled: options.enabled,
  });
}

function portalMethods(send: Send): WebhookPortal {
  const endpoint = (id: string) => `/endpoints/${seg(id)}`;
  return {
    async listEventTypes() {
      return (await send<WireItems<WireWebhookEventType>>("/event-types")).items.map((item) => ({
        name: item.name,
        description: item.description,
      }));
    },
    async listEndpoints() {
      return (await send<WireItems<WireWebhookEndpoint>>("/endpoints")).items.map(endpointFromJson);
    },
    async getEndpoint(id) {
      return endpointFromJson(await send<WireWebhookEndpoint>(endpoint(id)));
    },
    async createEndpoint(options) {
      const json = await send<WireWebhookEndpointCreated>("/endpoints", {
        method: "POST",
        body: endpointBody(options),
      });
      return { ...endpointFromJson(json), secret: json.secret };
    },
    async updateEndpoint(id, options) {
      return endpointFromJson(
        await send<WireWebhookEndpoint>(endpoint(id), { method: "PATCH", body: endpointBody(options) }),
      );
    },
    async deleteEndpoint(id) {
      await send(endpoint(id), { method: "DELETE" });
    },
    async rotateEndpointSecret(id) {
      const json = await send<WireWebhookSecret>(`${endpoint(id)}/rotate-secret`, {
        method: "POST",
        body: {},
      });
      return { secret: json.secret };
    },
    async listDeliveries(endpointId, options = {}) {
      const json = await send<WireItems<WireWebhookDelivery>>(
        withQuery(`${endpoint(endpointId)}/deliveries`, { limit: options.limit }),
      );
      return json.items.map(deliveryFromJson);
    },
    async sendTestEvent(endpointId) {
      return deliveryFromJson(
        await send<WireWebhookDelivery>(`${endpoint(endpointId)}/test`, { method: "POST", body: {} }),
      );
    },
    async resendDelivery(deliveryId) {
      return deliveryFromJson(
        await send<WireWebhookDelivery>(`/deliveries/${seg(deliveryId)}/resend`, {
          method: "POST",
          body: {},
        }),
      );
    },
  };
}

/** The portal's methods with an admin app's credentials. */
export function adminWebhookPortal(scope: Scope): WebhookPortal {
  return portalMethods(<T>(path: string, options?: { method?: string; body?: unknown }) =>
    call<T>(scope, `/webhooks-portal${path}`, options),
  );
}

/**
 * The portal's methods with a portal token alone (`authorization: Bearer`, no project keys or session). Errors are
 * thrown as the rest of the SDK throws them: `KnownError` for the protocol's errors, `HttpStatusError` for the
 * server's plain-text refusals (an expired token: 401 with the reason).
 */
export function openWebhookPortal(options: {
  /** The server's origin, without `/api/v1`. */
  baseUrl: string;
  token: string;
  fetch?: typeof fetch;
}): WebhookPortal {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const apiUrl = `${options.baseUrl.replace(/\/+$/, "")}/api/v1/webhooks-portal`;
  return portalMethods(
    async <T>(path: string, { method = "GET", body }: { method?: string; body?: unknown } = {}) => {
      const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
      if (body !== undefined) headers["content-type"] = "application/json";
      const response = await doFetch(`${apiUrl}${path}`, {
        method,
        headers,
        credentials: "omit",
        cache: "no-store",
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      const knownError = response.headers.get("x-stack-known-error");
      if (knownError !== null) {
        try {
          throw KnownError.fromJSON(JSON.parse(text) as KnownErrorJson);
        } catch (error) {
          if (error instanceof KnownError) throw error;
          throw new InvalidServerResponseError(
            `${method} ${path}: the known error ${knownError} is not JSON.`,
          );
        }
      }
      if (!response.ok) throw new HttpStatusError(response.status, method, `/webhooks-portal${path}`, text);
      try {
        // The answer is the route's wire type: the server parses every answer through that route's schema.
        return (text === "" ? {} : JSON.parse(text)) as T;
      } catch {
        throw new InvalidServerResponseError(`${method} ${path}: the answer is not JSON.`);
      }
    },
  );
}

/**
 * What a portal token says about itself, read without checking its signature (only the server can): the project it
 * names and when it expires. For display; null when it is not a portal token.
 */
export function readWebhookPortalToken(token: string): { projectId: string; expiresAt: Date } | null {
  const match = /^ghwp_([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+$/.exec(token);
  if (!match) return null;
  try {
    const base64 = match[1]!.replace(/-/g, "+").replace(/_/g, "/");
    const claims = JSON.parse(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, "="))) as {
      p?: unknown;
      exp?: unknown;
    };
    if (typeof claims.p !== "string" || typeof claims.exp !== "number") return null;
    return { projectId: claims.p, expiresAt: new Date(claims.exp) };
  } catch {
    return null;
  }
}
