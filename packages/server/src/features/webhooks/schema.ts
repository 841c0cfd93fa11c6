import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { events } from "../events/schema.ts";
import { projectIdColumn } from "../projects/schema.ts";

/**
 * Where a project's events are sent. The signing secret (`whsec_…`, Standard Webhooks) is kept encrypted: the
 * server must read it back to sign each delivery.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    /** The event types sent to this endpoint; empty for all of them. */
    eventTypes: jsonb("event_types").$type<string[]>().notNull().default([]),
    secretEncrypted: text("secret_encrypted").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("webhook_endpoints_project_idx").on(t.projectId, t.createdAt)],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/** One attempt's outcome, kept on the delivery (the last few, newest last). */
export type WebhookAttempt = {
  attempt: number;
  at: string;
  status_code: number | null;
  /** The start of the receiver's answer, or why there was none (timeout, refused connection, blocked address). */
  response: string;
  duration_ms: number;
};

/**
 * One event to one endpoint: made by the worker's fan-out when the event is committed, then sent with retries
 * (pending → sending → succeeded, or back to pending with a retry time, and failed after the last attempt).
 * Delivery is at least once; receivers de-duplicate by the event id (`webhook-id`).
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    eventId: uuid("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["pending", "sending", "succeeded", "failed"] })
      .notNull()
      .default("pending"),
    /** Attempts so far (counted when a worker claims the delivery; also fences a late worker's write). */
    attempts: integer("attempts").notNull().default(0),
    /** When a pending delivery is due; for a `sending` one, when its worker's lease runs out. */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastStatusCode: integer("last_status_code"),
    attemptLog: jsonb("attempt_log").$type<WebhookAttempt[]>().notNull().default([]),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    // A replayed fan-out (a worker died after inserting, before marking the event) cannot deliver twice.
    uniqueIndex("webhook_deliveries_event_endpoint_unique").on(t.eventId, t.endpointId),
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} in ('pending', 'sending')`),
    index("webhook_deliveries_endpoint_idx").on(t.projectId, t.endpointId, t.createdAt),
  ],
);

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
