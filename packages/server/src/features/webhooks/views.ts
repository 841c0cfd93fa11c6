import type { WireWebhookDelivery, WireWebhookEndpoint } from "@gatehouse/shared";
import { z } from "zod";
import { wire } from "../../http/wire-schema.ts";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../events/record.ts";
import type { DeliveryWithEvent } from "./endpoints.ts";
import type { WebhookEndpointRow } from "./schema.ts";

export const endpointSchema = wire<WireWebhookEndpoint>()(
  z.object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    /** Empty: every event type. */
    event_types: z.array(z.string()),
    enabled: z.boolean(),
    created_at_millis: z.number(),
    updated_at_millis: z.number(),
  }),
);

export function endpointView(row: WebhookEndpointRow): WireWebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.eventTypes,
    enabled: row.enabled,
    created_at_millis: row.createdAt.getTime(),
    updated_at_millis: row.updatedAt.getTime(),
  };
}

export const deliverySchema = wire<WireWebhookDelivery>()(
  z.object({
    id: z.string(),
    endpoint_id: z.string(),
    /** The message id (`webhook-id`), stable across attempts. */
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(["pending", "sending", "succeeded", "failed"]),
    attempts: z.number(),
    last_status_code: z.number().nullable(),
    /** When the next attempt is due; null once finished. */
    next_attempt_at_millis: z.number().nullable(),
    created_at_millis: z.number(),
    finished_at_millis: z.number().nullable(),
    /** The newest attempts, oldest first. */
    attempt_log: z.array(
      z.object({
        attempt: z.number(),
        at_millis: z.number(),
        status_code: z.number().nullable(),
        response: z.string(),
        duration_ms: z.number(),
      }),
    ),
  }),
);

export function deliveryView(row: DeliveryWithEvent): WireWebhookDelivery {
  const finished = row.status === "succeeded" || row.status === "failed";
  return {
    id: row.id,
    endpoint_id: row.endpointId,
    event_id: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    next_attempt_at_millis: finished ? null : row.nextAttemptAt.getTime(),
    created_at_millis: row.createdAt.getTime(),
    finished_at_millis: row.finishedAt?.getTime() ?? null,
    attempt_log: row.attemptLog.map((attempt) => ({
      attempt: attempt.attempt,
      at_millis: Date.parse(attempt.at),
      status_code: attempt.status_code,
      response: attempt.response,
      duration_ms: attempt.duration_ms,
    })),
  };
}

const DESCRIPTIONS: Record<WebhookEventType, string> = {
  "user.created": "A user was created (any sign-up, or created by the server).",
  "user.updated": "A user was updated.",
  "user.deleted": "A user was deleted.",
  "team.created": "A team was created.",
  "team.updated": "A team was updated.",
  "team.deleted": "A team was deleted.",
  "team_membership.created": "A user was added to a team.",
  "team_membership.deleted": "A user was removed from a team.",
  "team_permission.created": "A team permission was granted to a member.",
  "team_permission.deleted": "A team permission was revoked from a member.",
  "project_permission.created": "A project permission was granted to a user.",
  "project_permission.deleted": "A project permission was revoked from a user.",
  "stack.test": "A test message sent from the portal or the dashboard.",
};

export const EVENT_TYPE_LIST = WEBHOOK_EVENT_TYPES.map((name) => ({ name, description: DESCRIPTIONS[name] }));
