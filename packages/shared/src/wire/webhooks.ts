/** The webhook portal (`/webhooks-portal/...`): endpoints, their deliveries, and the event types. */

export type WireWebhookEventType = { name: string; description: string };

export type WireWebhookEndpoint = {
  id: string;
  url: string;
  description: string;
  /** Empty: every event type. */
  event_types: string[];
  enabled: boolean;
  created_at_millis: number;
  updated_at_millis: number;
};

/** Creating an endpoint (and rotating its secret) is the only time the signing secret is sent. */
export type WireWebhookSecret = { secret: string };
export type WireWebhookEndpointCreated = WireWebhookEndpoint & WireWebhookSecret;

export type WireWebhookAttempt = {
  attempt: number;
  at_millis: number;
  status_code: number | null;
  response: string;
  duration_ms: number;
};

export type WireWebhookDelivery = {
  id: string;
  endpoint_id: string;
  /** The message id (`webhook-id`), stable across attempts. */
  event_id: string;
  event_type: string;
  status: "pending" | "sending" | "succeeded" | "failed";
  attempts: number;
  last_status_code: number | null;
  /** When the next attempt is due; null once finished. */
  next_attempt_at_millis: number | null;
  created_at_millis: number;
  finished_at_millis: number | null;
  /** The newest attempts, oldest first. */
  attempt_log: WireWebhookAttempt[];
};

/** The portal's lists are `{items}` alone, without the CRUD lists' `is_paginated`. */
export type WireItems<T> = { items: T[] };

/** `POST /webhooks/svix-token`: a portal token and the portal page that takes it. */
export type WireWebhookPortalToken = { token: string; url: string };

/** `POST /internal/send-test-webhook`: a failed delivery is an answer, not an error. */
export type WireWebhookTestResult = { success: boolean; error_message?: string | undefined };
