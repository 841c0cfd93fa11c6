import { and, eq, inArray, lte, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { AppDeps } from "../../deps.ts";
import { settlesWithin } from "../../settles-within.ts";
import { claimUndispatchedEvents, markDispatched } from "../events/dispatch.ts";
import { events } from "../events/schema.ts";
import { webhookAddressesGuarded } from "./address-guard.ts";
import { makeDeliveriesFor } from "./fan-out.ts";
import {
  type WebhookAttempt,
  type WebhookDeliveryRow,
  webhookDeliveries,
  webhookEndpoints,
} from "./schema.ts";
import { type AttemptOutcome, DELIVERY_TIMEOUT_MS, sendMessage } from "./sender.ts";
import { openEndpointSecret } from "./signing.ts";

export type WebhookWorker = {
  /** Look for new events and due deliveries now. */
  wake: () => void;
  /** Fans out and delivers everything due now, then resolves (tests, benches). */
  drain: () => Promise<void>;
  /**
   * Stops claiming and waits for the attempts in flight; claimed deliveries not yet sent go back to the queue at
   * once. With `handBackAfterMs`, attempts still running after that long are handed back too (the receiver may
   * still get them: delivery is at least once, and the message id stays the same).
   */
  stop: (options?: { handBackAfterMs?: number }) => Promise<void>;
  /** False once `stop` was called: readiness (http/readiness.ts) reports it. */
  isRunning: () => boolean;
};

export type WebhookWorkerOptions = {
  /** How often the event log and the deliveries are polled without a wake-up. */
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

const inMs = (ms: number) => sql`now() + ${`${Math.round(ms)} milliseconds`}::interval`;

type Claimed = WebhookDeliveryRow;

/**
 * Delivers the project's events to their webhook endpoints, in two steps, each safe with any number of workers on
 * one database (DESIGN.md, "Webhooks"):
 *
 * 1. Fan-out: in one transaction, lock undispatched events `FOR UPDATE SKIP LOCKED`, insert one delivery per
 *    matching enabled endpoint (`on conflict do nothing` on (event, endpoint)), mark the events dispatched.
 * 2. Delivery: claim due deliveries `FOR UPDATE SKIP LOCKED`, setting `sending`, `attempts + 1` and a lease in
 *    `next_attempt_at`; send; write the outcome only while still holding the claim (same status and attempt
 *    number), so a worker that lost its lease cannot overwrite the outcome of the one that took over.
 */
export function startWebhookWorker(deps: AppDeps, options: WebhookWorkerOptions = {}): WebhookWorker {
  const settings = { ...DEFAULTS, ...options };
  let stopped = false;
  let running: Promise<void> | null = null;
  let runAgain = false;
  /** Deliveries this worker claimed and has not written an outcome for: what a shutdown hands back. */
  const held = new Set<Claimed>();

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

  const claimDeliveries = async (): Promise<Claimed[]> => {
    const due = deps.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(
        and(
          inArray(webhookDeliveries.status, ["pending", "sending"]),
          lte(webhookDeliveries.nextAttemptAt, sql`now()`),
        ),
      )
      .orderBy(webhookDeliveries.nextAttemptAt)
      .limit(settings.deliveryBatchSize)
      .for("update", { skipLocked: true });
    return deps.db
      .update(webhookDeliveries)
      .set({
        status: "sending",
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        nextAttemptAt: inMs(settings.leaseMs),
      })
      .where(inArray(webhookDeliveries.id, due))
      .returning();
  };

  /** Writes the outcome only if this worker still holds the claim. */
  const finish = (row: Claimed, values: PgUpdateSetSource<typeof webhookDeliveries>) =>
    deps.db
      .update(webhookDeliveries)
      .set(values)
      .where(
        and(
          eq(webhookDeliveries.projectId, row.projectId),
          eq(webhookDeliveries.id, row.id),
          eq(webhookDeliveries.status, "sending"),
          eq(webhookDeliveries.attempts, row.attempts),
        ),
      );

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

  /**
   * Makes a claimed delivery due again now, for another worker (or this process after a restart) instead of after
   * the lease. Unsent, the claim is not counted; possibly sent (cut short), it counts as an interrupted claim.
   */
  const handBack = (row: Claimed, options: { unsent: boolean }) =>
    finish(row, {
      status: "pending",
      nextAttemptAt: sql`now()`,
      ...(options.unsent ? { attempts: sql`${webhookDeliveries.attempts} - 1` } : {}),
    });

  /** Ends a delivery without sending, saying why in its log. */
  const giveUp = (row: Claimed, why: string) => {
    deps.observability.metrics.deliveryOutcome("webhook", "failed");
    return finish(row, {
      status: "failed",
      attemptLog: logWith(row, { statusCode: null, response: why, durationMs: 0 }),
      finishedAt: sql`now()`,
    });
  };

  const deliverBatch = async (batch: Claimed[]) => {
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
        if (stopped) {
          await handBack(row, { unsent: true });
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

  const work = async (): Promise<void> => {
    while (!stopped && (await fanOut()) === settings.eventBatchSize) {}
    while (!stopped) {
      const batch = await claimDeliveries();
      if (batch.length === 0) return;
      for (const row of batch) held.add(row);
      await deliverBatch(batch).finally(() => {
        for (const row of batch) held.delete(row);
      });
      if (batch.length < settings.deliveryBatchSize) return;
    }
  };

  /** At most one run at a time; a wake-up during a run makes it look once more before finishing. */
  const run = (): Promise<void> => {
    if (running) {
      runAgain = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          runAgain = false;
          await work();
        } while (runAgain && !stopped);
      } finally {
        running = null;
      }
    })();
    return running;
  };

  const runInBackground = () => {
    if (stopped) return;
    run().catch((error) => console.error("Webhook delivery failed:", error));
  };

  const timer = setInterval(runInBackground, settings.intervalMs);
  timer.unref();
  runInBackground();

  return {
    wake: runInBackground,
    drain: async () => {
      if (!stopped) await run();
    },
    isRunning: () => !stopped,
    stop: async (stopOptions = {}) => {
      stopped = true;
      clearInterval(timer);
      if (
        !(await settlesWithin(running?.catch(() => {}) ?? Promise.resolve(), stopOptions.handBackAfterMs))
      ) {
        await Promise.all([...held].map((row) => handBack(row, { unsent: false }).catch(() => {})));
      }
    },
  };
}
