import { and, eq, inArray } from "drizzle-orm";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import type { EventRow } from "../events/schema.ts";
import { webhookDeliveries, webhookEndpoints } from "./schema.ts";

/** Whether an endpoint takes events of this type: its filter is empty (all types) or lists it. */
export function endpointTakes(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.length === 0 || eventTypes.includes(type);
}

/**
 * Makes one pending delivery per enabled endpoint of each event's project that takes its type, in the caller's
 * transaction (the one that marks the events dispatched). A replay (a worker died after inserting, before its
 * commit, which rolls the inserts back anyway) cannot double them: (event, endpoint) is unique.
 * Activity events (`$…`) are never delivered.
 */
export async function makeDeliveriesFor(tx: Database, claimed: readonly EventRow[]): Promise<void> {
  const deliverable = claimed.filter((event) => !event.type.startsWith("$"));
  if (deliverable.length === 0) return;
  const projectIds = [...new Set(deliverable.map((event) => event.projectId))];
  const endpoints = await tx
    .select({
      id: webhookEndpoints.id,
      projectId: webhookEndpoints.projectId,
      eventTypes: webhookEndpoints.eventTypes,
    })
    .from(webhookEndpoints)
    .where(and(inArray(webhookEndpoints.projectId, projectIds), eq(webhookEndpoints.enabled, true)));
  const rows = deliverable.flatMap((event) =>
    endpoints
      .filter(
        (endpoint) =>
          endpoint.projectId === event.projectId && endpointTakes(endpoint.eventTypes, event.type),
      )
      .map((endpoint) => ({
        projectId: event.projectId,
        id: randomUuid(),
        eventId: event.id,
        endpointId: endpoint.id,
      })),
  );
  // A few thousand rows per statement at most (PostgreSQL allows 65,535 parameters).
  for (let start = 0; start < rows.length; start += 2_000) {
    await tx
      .insert(webhookDeliveries)
      .values(rows.slice(start, start + 2_000))
      .onConflictDoNothing({ target: [webhookDeliveries.eventId, webhookDeliveries.endpointId] });
  }
}

/** A delivery made outside the fan-out, for an event written already dispatched (a portal test message). */
export async function insertDelivery(
  tx: Database,
  input: { projectId: string; eventId: string; endpointId: string },
): Promise<string> {
  const id = randomUuid();
  await tx.insert(webhookDeliveries).values({ ...input, id });
  return id;
}
