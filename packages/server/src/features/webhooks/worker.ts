import { inArray, sql } from "drizzle-orm";
import { inMs, leasedQueue } from "../../background/leased-queue.ts";
import { type PollingWorker, startPollingWorker } from "../../background/polling-worker.ts";
import type { AppDeps } from "../../deps.ts";
import { webhookAddressesGuarded } from "../../net/address-guard.ts";
import { claimUndispatchedEvents, markDispatched } from "../events/dispatch.ts";
import { events } from "../events/schema.ts";
import { makeDeliveriesFor } from "./fan-out.ts";
import {
  type WebhookAttempt,
  type WebhookDeliveryRow,
  webhookDeliveries,
  webhookEndpoints,
} from "./schema.ts";
import { type AttemptOutcome, DELIVERY_TIMEOUT_MS, sendMessage } from "./sender.ts";
import { openEndpointSecret } from "./signing.ts";

/**
 * The deliveries' worker (background/polling-worker.ts). Claimed deliveries not yet sent go back to the queue at
 * once when it stops; attempts still running after `handBackAfterMs` are handed back too (the receiver may still get
 * them: delivery is at least once, and the message id stays the same).
 */
export type WebhookWorker = PollingWorker;

export type WebhookWorkerOptions = {
  /**
   * The longest wait between looks at the event log and the deliveries without a wake-up (a retry is looked at
   * when due, whatever this says; new events wake the worker through work-notices.ts).
   */
  intervalMs?: number;
  eventBatchSize?: number;
  deliveryBatchSize?: number;
  /** How long a claimed delivery may stay `sending` before another worker assumes this one died. */
  leaseMs?: number;
  timeoutMs?: number;
  /** Waits after the 1st, 2nd, ... failed attempt; one more attempt than delays in all, then `failed`. */
  retryDelaysMs?: readonly number[];
};

/** PROTOCOL-EXTRA §3.3: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; 8 attempts in all. */
export const RETRY_DELAYS_MS = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000].map(
  (seconds) => seconds * 1000,
);
/** Attempts kept in a delivery's log (the newest). */
export const KEPT_ATTEMPTS = 10;
/** Claims that never recorded an outcome (the worker died each time) before a delivery is given up. */
const MAX_INTERRUPTED_CLAIMS = 3;

const DEFAULTS: Required<WebhookWorkerOptions> = {
  intervalMs: 2_000,
  eventBatchSize: 200,
  deliveryBatchSize: 50,
  leaseMs: DELIVERY_TIMEOUT_MS + 45_000,
  timeoutMs: DELIVERY_TIMEOUT_MS,
  retryDelaysMs: RETRY_DELAYS_MS,
};

type Claimed = WebhookDeliveryRow;

/**
 * Delivers the project's events to their webhook endpoints, in two steps, each safe with any number of workers on
 * one database (DECISIONS.md, "Webhooks"):
 *
 * 1. Fan-out: in one transaction, lock undispatched events `FOR UPDATE SKIP LOCKED`, insert one delivery per
 *    matching enabled endpoint (`on conflict do nothing` on (event, endpoint)), mark the events dispatched.
 * 2. Delivery: claim due deliveries under a lease, send, write the outcome behind the claim's fence
 *    (background/leased-queue.ts).
 */
export function startWebhookWorker(deps: AppDeps, options: WebhookWorkerOptions = {}): WebhookWorker {
  const settings = { ...DEFAULTS, ...options };
  const deliveries = leasedQueue(
    deps.db,
    webhookDeliveries,
    { due: ["pending", "sending"], claimed: "sending", waiting: "pending" },
    { queue: "webhooks" },
  );
  const finish = deliveries.finish;

  const fanOut = async (): Promise<number> =>
    deps.db.transaction(async (tx) => {
      const claimed = await claimUndispatchedEvents(tx, settings.eventBatchSize);
      if (claimed.length === 0) return 0;
      await makeDeliveriesFor(tx, claimed);
      await markDispatched(
        tx,
        claimed.map((event) => event.id),
      );
      return claimed.length;
    });

  /** The row's attempt log with this attempt added (the newest KEPT_ATTEMPTS). */
  const logWith = (row: Claimed, outcome: Pick<AttemptOutcome, "statusCode" | "response" | "durationMs">) => {
    const attempt: WebhookAttempt = {
      attempt: row.attempts,
      at: new Date().toISOString(),
      status_code: outcome.statusCode,
      response: outcome.response,
      duration_ms: outcome.durationMs,
    };
    return [...row.attemptLog, attempt].slice(-KEPT_ATTEMPTS);
  };

  const record = (row: Claimed, outcome: AttemptOutcome) => {
    const common = { attemptLog: logWith(row, outcome), lastStatusCode: outcome.statusCode };
    const delay = settings.retryDelaysMs[row.attempts - 1];
    deps.observability.metrics.deliveryOutcome(
      "webhook",
      outcome.ok ? "sent" : delay === undefined ? "failed" : "retried",
    );
    if (outcome.ok) return finish(row, { ...common, status: "succeeded", finishedAt: sql`now()` });
    return finish(
      row,
      delay === undefined
        ? { ...common, status: "failed", finishedAt: sql`now()` }
        : { ...common, status: "pending", nextAttemptAt: inMs(delay) },
    );
  };

  /** Ends a delivery without sending, saying why in its log. */
  const giveUp = (row: Claimed, why: string) => {
    deps.observability.metrics.deliveryOutcome("webhook", "failed");
    return finish(row, {
      status: "failed",
      attemptLog: logWith(row, { statusCode: null, response: why, durationMs: 0 }),
      finishedAt: sql`now()`,
    });
  };

  const deliverBatch = async (batch: Claimed[], stopping: () => boolean) => {
    const endpointRows = await deps.db
      .select()
      .from(webhookEndpoints)
      .where(inArray(webhookEndpoints.id, [...new Set(batch.map((row) => row.endpointId))]));
    const eventRows = await deps.db
      .select({ id: events.id, type: events.type, data: events.data })
      .from(events)
      .where(inArray(events.id, [...new Set(batch.map((row) => row.eventId))]));
    const endpointsById = new Map(endpointRows.map((row) => [row.id, row]));
    const eventsById = new Map(eventRows.map((row) => [row.id, row]));
    await Promise.all(
      batch.map(async (row) => {
        const endpoint = endpointsById.get(row.endpointId);
        const event = eventsById.get(row.eventId);
        if (!endpoint || !event) return; // deleted meanwhile, and the delivery with it (cascade)
        const lastLogged = row.attemptLog.at(-1)?.attempt ?? 0;
        if (row.attempts - lastLogged - 1 >= MAX_INTERRUPTED_CLAIMS) {
          await giveUp(row, "Delivery was interrupted too many times (the worker stopped mid-attempt).");
          return;
        }
        if (!endpoint.enabled) {
          await giveUp(row, "Not sent: the endpoint is disabled.");
          return;
        }
        if (stopping()) {
          await deliveries.handBack(row, { unsent: true });
          return;
        }
        let secret: string;
        try {
          secret = openEndpointSecret(deps.env, endpoint.secretEncrypted);
        } catch {
          await giveUp(
            row,
            "Not sent: the endpoint's secret could not be read (was GATEHOUSE_SECRET changed?).",
          );
          return;
        }
        const outcome = await sendMessage(
          {
            url: endpoint.url,
            secret,
            id: event.id,
            body: JSON.stringify({ type: event.type, data: event.data }),
          },
          { guard: webhookAddressesGuarded(deps.env), timeoutMs: settings.timeoutMs },
        );
        await record(row, outcome);
      }),
    );
  };

  /** One pass: fan new events out into deliveries, then claim and send due deliveries, batch after batch. */
  const pass = async (stopping: () => boolean): Promise<void> => {
    while (!stopping() && (await fanOut()) === settings.eventBatchSize) {}
    while (!stopping()) {
      const batch = await deliveries.claim({
        limit: settings.deliveryBatchSize,
        leaseMs: settings.leaseMs,
        orderBy: [webhookDeliveries.nextAttemptAt],
      });
      if (batch.length === 0) return;
      await deliveries.holding(batch, () => deliverBatch(batch, stopping));
      if (batch.length < settings.deliveryBatchSize) return;
    }
  };

  return startPollingWorker({
    name: "Webhook delivery",
    intervalMs: settings.intervalMs,
    pass,
    handBack: deliveries.handBackHeld,
    nextDueInMs: () => deliveries.nextDueInMs(),
  });
}
