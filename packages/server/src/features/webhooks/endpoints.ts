/**
 * A project's webhook endpoints and their deliveries: every query names the project, so an id of another project
 * is simply not found. The SSRF check runs on every URL written (address-guard.ts).
 */
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { randomUuid } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { StatusError } from "../../http/status-error.ts";
import { checkEndpointUrl, webhookAddressesGuarded } from "../../net/address-guard.ts";
import { recordDispatchedEvent } from "../events/dispatch.ts";
import { events } from "../events/schema.ts";
import { insertDelivery } from "./fan-out.ts";
import { type WebhookEndpointRow, webhookDeliveries, webhookEndpoints } from "./schema.ts";
import { generateEndpointSecret, sealEndpointSecret } from "./signing.ts";

export type EndpointInput = {
  url: string;
  description?: string | undefined;
  event_types?: string[] | undefined;
  enabled?: boolean | undefined;
};

const NOT_FOUND = "Webhook endpoint not found.";

async function assertUrlAllowed(deps: AppDeps, url: string): Promise<void> {
  const check = await checkEndpointUrl(!webhookAddressesGuarded(deps.env), url);
  if (!check.ok) throw new StatusError(400, check.reason);
}

export function listEndpoints(deps: AppDeps, projectId: string): Promise<WebhookEndpointRow[]> {
  return deps.db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.projectId, projectId))
    .orderBy(webhookEndpoints.createdAt, webhookEndpoints.id);
}

export async function getEndpoint(deps: AppDeps, projectId: string, id: string): Promise<WebhookEndpointRow> {
  const [row] = await deps.db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.projectId, projectId), eq(webhookEndpoints.id, id)));
  if (!row) throw new StatusError(404, NOT_FOUND);
  return row;
}

/** Creates an endpoint with a fresh secret; the secret is returned this once (and on rotation). */
export async function createEndpoint(
  deps: AppDeps,
  projectId: string,
  input: EndpointInput,
): Promise<{ row: WebhookEndpointRow; secret: string }> {
  await assertUrlAllowed(deps, input.url);
  const secret = generateEndpointSecret();
  const [row] = await deps.db
    .insert(webhookEndpoints)
    .values({
      projectId,
      id: randomUuid(),
      url: input.url,
      description: input.description ?? "",
      eventTypes: [...new Set(input.event_types ?? [])],
      enabled: input.enabled ?? true,
      secretEncrypted: sealEndpointSecret(deps.env, secret),
    })
    .returning();
  return { row: row!, secret };
}

export async function updateEndpoint(
  deps: AppDeps,
  projectId: string,
  id: string,
  input: Partial<EndpointInput>,
): Promise<WebhookEndpointRow> {
  if (input.url !== undefined) await assertUrlAllowed(deps, input.url);
  const [row] = await deps.db
    .update(webhookEndpoints)
    .set({
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.event_types !== undefined ? { eventTypes: [...new Set(input.event_types)] } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      updatedAt: sql`now()`,
    })
    .where(and(eq(webhookEndpoints.projectId, projectId), eq(webhookEndpoints.id, id)))
    .returning();
  if (!row) throw new StatusError(404, NOT_FOUND);
  return row;
}

export async function deleteEndpoint(deps: AppDeps, projectId: string, id: string): Promise<void> {
  const deleted = await deps.db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.projectId, projectId), eq(webhookEndpoints.id, id)))
    .returning({ id: webhookEndpoints.id });
  if (deleted.length === 0) throw new StatusError(404, NOT_FOUND);
}

/** A new secret; attempts from then on are signed with it. Returned this once. */
export async function rotateEndpointSecret(deps: AppDeps, projectId: string, id: string): Promise<string> {
  const secret = generateEndpointSecret();
  const [row] = await deps.db
    .update(webhookEndpoints)
    .set({ secretEncrypted: sealEndpointSecret(deps.env, secret), updatedAt: sql`now()` })
    .where(and(eq(webhookEndpoints.projectId, projectId), eq(webhookEndpoints.id, id)))
    .returning({ id: webhookEndpoints.id });
  if (!row) throw new StatusError(404, NOT_FOUND);
  return secret;
}

export type DeliveryWithEvent = typeof webhookDeliveries.$inferSelect & { eventType: string };

/** An endpoint's most recent deliveries, newest first, with their event's type. */
export async function listDeliveries(
  deps: AppDeps,
  projectId: string,
  endpointId: string,
  limit: number,
): Promise<DeliveryWithEvent[]> {
  await getEndpoint(deps, projectId, endpointId);
  const rows = await deps.db
    .select({ delivery: webhookDeliveries, eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.projectId, projectId), eq(webhookDeliveries.endpointId, endpointId)))
    // One fan-out makes its deliveries at one time; the events' sequence orders them within it.
    .orderBy(desc(webhookDeliveries.createdAt), desc(events.seq))
    .limit(limit);
  return rows.map((row) => ({ ...row.delivery, eventType: row.eventType }));
}

async function getDelivery(deps: AppDeps, projectId: string, id: string): Promise<DeliveryWithEvent> {
  const [row] = await deps.db
    .select({ delivery: webhookDeliveries, eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.projectId, projectId), eq(webhookDeliveries.id, id)));
  if (!row) throw new StatusError(404, "Webhook delivery not found.");
  return { ...row.delivery, eventType: row.eventType };
}

/**
 * Sends a finished delivery again: a new pending attempt with the same message id, due now. A delivery still on
 * its way (pending or sending) is left as it is. Attempts keep counting (they fence workers' writes).
 */
export async function resendDelivery(
  deps: AppDeps,
  projectId: string,
  id: string,
): Promise<DeliveryWithEvent> {
  await deps.db
    .update(webhookDeliveries)
    .set({ status: "pending", nextAttemptAt: sql`now()`, finishedAt: null })
    .where(
      and(
        eq(webhookDeliveries.projectId, projectId),
        eq(webhookDeliveries.id, id),
        inArray(webhookDeliveries.status, ["succeeded", "failed"]),
      ),
    );
  // Read before waking the worker: woken first, it could take the delivery before the answer is read, and the
  // answer would say "sending" one time and "pending" the next.
  const delivery = await getDelivery(deps, projectId, id);
  deps.webhookWorker?.wake();
  return delivery;
}

/** A `stack.test` message to one endpoint through the delivery pipeline (listed, retried, resendable). */
export async function queueTestMessage(
  deps: AppDeps,
  projectId: string,
  endpointId: string,
): Promise<DeliveryWithEvent> {
  const endpoint = await getEndpoint(deps, projectId, endpointId);
  const deliveryId = await deps.db.transaction(async (tx) => {
    const eventId = await recordDispatchedEvent(tx, projectId, {
      type: "stack.test",
      data: testMessageData(endpoint.url),
    });
    return insertDelivery(tx, { projectId, eventId, endpointId });
  });
  // Read before waking the worker, as in resendDelivery.
  const delivery = await getDelivery(deps, projectId, deliveryId);
  deps.webhookWorker?.wake();
  return delivery;
}

/** The `stack.test` payload (PROTOCOL-EXTRA §3.1). */
export function testMessageData(endpointUrl: string) {
  return { message: "Test webhook event from Gatehouse. It worked!", endpointUrl };
}
