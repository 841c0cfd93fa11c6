/**
 * The webhook worker's side of the event log: claiming committed events that were not fanned out to endpoints yet,
 * marking them fanned out, and writing an event that is delivered to one endpoint only (a portal's test message).
 * The writes live here because this folder owns `events`; the webhooks feature decides what to do with the rows.
 */
import { inArray, isNull, sql } from "drizzle-orm";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import type { WebhookEventType } from "./record.ts";
import { type EventRow, events } from "./schema.ts";

/**
 * Locks up to `limit` undispatched events, in the order they were written, `FOR UPDATE SKIP LOCKED`: another worker's transaction
 * skips them, so each event is fanned out by one worker. Call inside the transaction that makes its deliveries
 * and then `markDispatched`; a worker that dies before committing releases them with its transaction.
 */
export function claimUndispatchedEvents(tx: Database, limit: number): Promise<EventRow[]> {
  return tx
    .select()
    .from(events)
    .where(isNull(events.dispatchedAt))
    .orderBy(events.seq)
    .limit(limit)
    .for("update", { skipLocked: true });
}

export async function markDispatched(tx: Database, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx
    .update(events)
    .set({ dispatchedAt: sql`now()` })
    .where(inArray(events.id, [...ids]));
}

/**
 * An event that is never fanned out (written already dispatched): its one delivery is made by the caller, e.g. a
 * test message the owner sends to one endpoint. Returns its id, which is also the message's `webhook-id`.
 */
export async function recordDispatchedEvent(
  tx: Database,
  projectId: string,
  event: { type: WebhookEventType; data: unknown },
): Promise<string> {
  const id = randomUuid();
  await tx
    .insert(events)
    .values({ projectId, id, type: event.type, data: event.data as object, dispatchedAt: sql`now()` });
  return id;
}
