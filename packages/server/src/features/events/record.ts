/**
 * Writing events. `recordEvents` is called by the feature that makes a change, inside the transaction that makes
 * it (PROTOCOL-EXTRA §3.1 lists which change fires which event, with which payload); the webhook worker delivers
 * them once committed, woken by the notice the insert sends at commit. The payload is built by the caller, as the protocol shapes it, at the moment of the change.
 */
import { notifyWorkersAtCommit } from "../../background/work-notices.ts";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { events } from "./schema.ts";

/** The event types webhooks deliver (PROTOCOL-EXTRA §3.1). */
export const WEBHOOK_EVENT_TYPES = [
  "user.created",
  "user.updated",
  "user.deleted",
  "team.created",
  "team.updated",
  "team.deleted",
  "team_membership.created",
  "team_membership.deleted",
  "team_permission.created",
  "team_permission.deleted",
  "project_permission.created",
  "project_permission.deleted",
  "stack.test",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export type NewEvent = {
  type: WebhookEventType;
  data: unknown;
  userId?: string | null;
  teamId?: string | null;
};

/** Writes events in the caller's transaction (or on their own, for `db`). */
export async function recordEvents(
  tx: Database,
  projectId: string,
  list: readonly NewEvent[],
): Promise<void> {
  if (list.length === 0) return;
  await tx
    .insert(events)
    .values(
      list.map((event) => ({
        projectId,
        id: randomUuid(),
        type: event.type,
        data: event.data as object,
        userId: event.userId ?? null,
        teamId: event.teamId ?? null,
      })),
    )
    .returning({ notified: notifyWorkersAtCommit("webhooks") });
}
