import { desc, eq, inArray, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { inMs, leasedQueue } from "../../background/leased-queue.ts";
import { type PollingWorker, startPollingWorker } from "../../background/polling-worker.ts";
import type { AppDeps } from "../../deps.ts";
import type { DeliveryOutcome } from "../../observability/metrics.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { projects } from "../projects/schema.ts";
import { settleAfterAnswer } from "./after-answer.ts";
import { type EmailMessage, openMessage, redactMessage } from "./body.ts";
import { withinCapacity } from "./capacity.ts";
import { logOwnDevEmail } from "./dev-inbox.ts";
import { nextRenderDueInMs, renderDueEmails } from "./render-step.ts";
import { type SentEmailRow, sentEmails } from "./schema.ts";
import { type Delivery, describeSmtpError, resolveDelivery, sendWith, TransportCache } from "./transport.ts";

/**
 * The outbox's worker (background/polling-worker.ts). Its `drain` and `stop` first let email work still running
 * after its request answered (after-answer.ts) queue its mail; `stop` also closes the SMTP transports. Messages
 * claimed but not yet handed to SMTP go back to the queue at once; sends still running after `handBackAfterMs` are
 * handed back too (they may still go out: delivery is at least once).
 */
export type EmailWorker = PollingWorker;

export type EmailWorkerOptions = {
  /**
   * The longest wait between looks at the outbox without a wake-up (a retry or a scheduled send is looked at when
   * due, whatever this says).
   */
  intervalMs?: number;
  batchSize?: number;
  /** After this many failed attempts a message is marked `failed` (it stays in the table with its last error). */
  maxAttempts?: number;
  /** How long a claimed message may stay `sending` before another worker assumes its worker died. */
  leaseMs?: number;
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
};

const DEFAULTS: Required<EmailWorkerOptions> = {
  intervalMs: 5_000,
  batchSize: 25,
  maxAttempts: 8,
  leaseMs: 5 * 60_000,
  retryBaseDelayMs: 30_000,
  retryMaxDelayMs: 60 * 60_000,
};

/** Exponential backoff: the base delay after the first failure, doubling each time, capped. */
export function retryDelayMs(
  attempts: number,
  options: Pick<EmailWorkerOptions, "retryBaseDelayMs" | "retryMaxDelayMs"> = {},
) {
  const base = options.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs;
  const max = options.retryMaxDelayMs ?? DEFAULTS.retryMaxDelayMs;
  return Math.min(max, base * 2 ** Math.max(0, attempts - 1));
}

/**
 * Delivers the outbox: rows are claimed under a lease, their outcome written behind the claim's fence, and a
 * stopping worker hands back what it holds (background/leased-queue.ts), so any number of workers in any number of
 * instances share one outbox and each message goes out at least once.
 */
export function startEmailWorker(deps: AppDeps, options: EmailWorkerOptions = {}): EmailWorker {
  const settings = { ...DEFAULTS, ...options };
  const transports = new TransportCache();
  const outbox = leasedQueue(
    deps.db,
    sentEmails,
    { due: ["queued", "sending"], claimed: "sending", waiting: "queued" },
    { touch: () => ({ updatedAt: sql`now()` }), queue: "emails" },
  );
  /** The attempt's error appended to the row's list (one entry per failed attempt). */
  const withAttemptError = (row: SentEmailRow, error: string) => ({
    error,
    sendAttemptErrors: [
      ...(row.sendAttemptErrors ?? []),
      { attempt_number: row.attempts, timestamp: new Date().toISOString(), message: error },
    ],
  });

  /** `finish` with the outcome counted (the delivery outcomes metric). */
  const counted = (
    outcome: DeliveryOutcome,
    row: SentEmailRow,
    values: PgUpdateSetSource<typeof sentEmails>,
  ) => {
    deps.observability.metrics.deliveryOutcome("email", outcome);
    return outbox.finish(row, values);
  };

  const giveUp = (row: SentEmailRow, error: string) =>
    counted("failed", row, {
      status: "failed",
      failedAt: sql`now()`,
      ...withAttemptError(row, error),
      ...outOfHands(row),
    });

  const recordFailure = (row: SentEmailRow, error: string) =>
    row.attempts >= settings.maxAttempts
      ? giveUp(row, error)
      : counted("retried", row, {
          status: "queued",
          ...withAttemptError(row, error),
          nextAttemptAt: inMs(retryDelayMs(row.attempts, settings)),
        });

  /** One query for the projects of a batch, and one config render per distinct project (at most the batch size). */
  const deliveriesFor = async (rows: SentEmailRow[]): Promise<Map<string, Delivery>> => {
    const projectIds = [...new Set(rows.map((r) => r.projectId))];
    const projectRows = await deps.db
      .select({ id: projects.id, displayName: projects.displayName })
      .from(projects)
      .where(inArray(projects.id, projectIds));
    const entries = await Promise.all(
      projectRows.map(async (project): Promise<[string, Delivery]> => {
        try {
          const config = await getRenderedConfig(deps, project.id);
          return [project.id, resolveDelivery(deps.env, project.displayName, config.emails.server)];
        } catch (error) {
          return [
            project.id,
            { kind: "misconfigured", error: `The project's config could not be read: ${String(error)}` },
          ];
        }
      }),
    );
    return new Map(entries);
  };

  const deliver = async (
    row: SentEmailRow,
    delivery: Delivery | undefined,
    stopping: () => boolean,
  ): Promise<void> => {
    if (!delivery) return; // the project was deleted meanwhile, and its outbox with it
    if (row.attempts > settings.maxAttempts) {
      await giveUp(row, row.error ?? "Delivery was interrupted too many times.");
      return;
    }
    let message: EmailMessage;
    try {
      message = row.bodyEncrypted ? openMessage(deps.env, row.bodyEncrypted) : legacyMessage(row);
    } catch (error) {
      // Retrying cannot help: the message was sealed under another GATEHOUSE_SECRET, or altered since.
      await giveUp(row, `The message could not be read, so it was not sent (${errorMessage(error)}).`);
      return;
    }
    if (delivery.kind === "misconfigured") {
      await recordFailure(row, delivery.error);
      return;
    }
    if (delivery.kind === "dev-outbox") {
      logOwnDevEmail(deps, row, message);
      await counted("sent", row, {
        status: "sent",
        transport: "dev-outbox",
        sentAt: sql`now()`,
        error: null,
        // In production nothing secret is kept, even though nothing was sent (no SMTP server is configured).
        ...(deps.env.isDevelopment && row.bodyEncrypted ? {} : outOfHands(row)),
      });
      return;
    }
    if (stopping()) {
      await outbox.handBack(row, { unsent: true });
      return;
    }
    try {
      await sendWith(await transports.get(delivery.options), {
        from: delivery.from,
        to: row.to,
        ...message,
      });
    } catch (error) {
      await recordFailure(row, describeSmtpError(error));
      return;
    }
    await counted("sent", row, {
      status: "sent",
      transport: "smtp",
      sentAt: sql`now()`,
      error: null,
      ...outOfHands(row),
    });
  };

  /** One pass: render what waits for it, then claim and send due messages, batch after batch. */
  const deliverDue = async (stopping: () => boolean): Promise<void> => {
    await renderDueEmails(deps, { stopping });
    while (!stopping()) {
      const claimed = await outbox.claim({
        limit: settings.batchSize,
        leaseMs: settings.leaseMs,
        // High priority (the built-in emails) and transactional first (PROTOCOL-EXTRA §1.8), then oldest due.
        orderBy: [desc(sentEmails.priority), sentEmails.nextAttemptAt],
        where: eq(sentEmails.isPaused, false),
        set: { startedSendingAt: sql`now()` },
      });
      if (claimed.length === 0) return;
      // What is over a project's hourly capacity goes back to the queue until a slot frees (capacity.ts).
      const batch = await withinCapacity(deps, claimed);
      await outbox.holding(batch, async () => {
        const deliveries = await deliveriesFor(batch);
        await Promise.all(batch.map((row) => deliver(row, deliveries.get(row.projectId), stopping)));
      });
      if (claimed.length < settings.batchSize) return;
    }
  };

  return startPollingWorker({
    name: "Email delivery",
    intervalMs: settings.intervalMs,
    pass: deliverDue,
    // Work after an answer only queues mail (which stays in the outbox for the next start); let it finish first.
    settleFirst: () => settleAfterAnswer(deps),
    handBack: outbox.handBackHeld,
    onStopped: () => transports.closeAll(),
    nextDueInMs: async () => {
      const due = [await nextRenderDueInMs(deps), await outbox.nextDueInMs(eq(sentEmails.isPaused, false))];
      const known = due.filter((ms): ms is number => ms !== null);
      return known.length === 0 ? null : Math.min(...known);
    },
  });
}

/**
 * Once a message is out of our hands (accepted by the SMTP server, or given up on), the sealed body goes and the row
 * keeps only its redacted copy (body.ts). Development's dev outbox keeps it, as the developer's inbox.
 */
function outOfHands(row: SentEmailRow): PgUpdateSetSource<typeof sentEmails> {
  return row.bodyEncrypted
    ? { bodyEncrypted: null, variablesEncrypted: null }
    : redactMessage(legacyMessage(row), []);
}

/**
 * A row without a sealed body was queued by an instance still running an older version (a rolling upgrade): its
 * columns are the message itself, sent as they are and redacted by the general rules once out (body.ts). The
 * migration that added the sealed body redacted the rows that were already delivered.
 */
function legacyMessage(row: SentEmailRow): EmailMessage {
  return { subject: row.subject, html: row.html, text: row.text };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
