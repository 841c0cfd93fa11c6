import { and, desc, eq, inArray, lte, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { AppDeps } from "../../deps.ts";
import type { DeliveryOutcome } from "../../observability/metrics.ts";
import { settlesWithin } from "../../settles-within.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { projects } from "../projects/schema.ts";
import { settleAfterAnswer } from "./after-answer.ts";
import { type EmailMessage, openMessage, redactMessage } from "./body.ts";
import { withinCapacity } from "./capacity.ts";
import { renderDueEmails } from "./render-step.ts";
import { type SentEmailRow, sentEmails } from "./schema.ts";
import { type Delivery, describeSmtpError, resolveDelivery, sendWith, TransportCache } from "./transport.ts";

export type EmailWorker = {
  /** Look at the outbox now (called whenever a message is queued). */
  wake: () => void;
  /**
   * Stops claiming, waits for the deliveries in flight and closes the SMTP transports. Messages claimed but not yet
   * handed to SMTP go back to the queue at once. With `handBackAfterMs`, sends still running after that long are
   * handed back too (they may still go out: delivery is at least once), so a shutdown never waits on a slow server.
   */
  stop: (options?: { handBackAfterMs?: number }) => Promise<void>;
  /** False once `stop` was called: readiness (http/readiness.ts) reports it. */
  isRunning: () => boolean;
  /**
   * Lets email work still running after its request answered (after-answer.ts) queue its mail, then delivers
   * everything that is due now, and resolves; for tests and shutdown hooks.
   */
  drain: () => Promise<void>;
};

export type EmailWorkerOptions = {
  /** How often the outbox is polled without a wake-up, for retries and for mail queued by other instances. */
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

const inMs = (ms: number) => sql`now() + ${`${Math.round(ms)} milliseconds`}::interval`;

/**
 * Delivers the outbox. Rows are claimed with `FOR UPDATE SKIP LOCKED`, so any number of workers (in one process or
 * many) can run on one database and each message is claimed by exactly one of them. A claim sets `sending` and a
 * lease in `next_attempt_at`; a worker that dies mid-send leaves a row whose lease runs out and which is claimed
 * again (delivery is at least once). `attempts` counts claims and also fences the final write, so a worker that
 * lost its lease cannot overwrite the outcome of the worker that took over.
 */
export function startEmailWorker(deps: AppDeps, options: EmailWorkerOptions = {}): EmailWorker {
  const settings = { ...DEFAULTS, ...options };
  const transports = new TransportCache();
  let stopped = false;
  let running: Promise<void> | null = null;
  let runAgain = false;
  /** Rows this worker claimed and has not written an outcome for: what a shutdown hands back. */
  const held = new Set<SentEmailRow>();

  const claimBatch = async (): Promise<SentEmailRow[]> => {
    const due = deps.db
      .select({ id: sentEmails.id })
      .from(sentEmails)
      // `sending` rows are due only once their lease has run out (the claim moved next_attempt_at forward).
      .where(
        and(
          inArray(sentEmails.status, ["queued", "sending"]),
          lte(sentEmails.nextAttemptAt, sql`now()`),
          eq(sentEmails.isPaused, false),
        ),
      )
      // High priority (the built-in emails) and transactional first (PROTOCOL-EXTRA §1.8), then oldest due.
      .orderBy(desc(sentEmails.priority), sentEmails.nextAttemptAt)
      .limit(settings.batchSize)
      .for("update", { skipLocked: true });
    return deps.db
      .update(sentEmails)
      .set({
        status: "sending",
        attempts: sql`${sentEmails.attempts} + 1`,
        nextAttemptAt: inMs(settings.leaseMs),
        startedSendingAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(inArray(sentEmails.id, due))
      .returning();
  };

  /** Writes the outcome only if this worker still holds the claim (same status and attempt number). */
  const finish = (row: SentEmailRow, values: PgUpdateSetSource<typeof sentEmails>) =>
    deps.db
      .update(sentEmails)
      .set({ ...values, updatedAt: sql`now()` })
      .where(
        and(
          eq(sentEmails.projectId, row.projectId),
          eq(sentEmails.id, row.id),
          eq(sentEmails.status, "sending"),
          eq(sentEmails.attempts, row.attempts),
        ),
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
    return finish(row, values);
  };

  const giveUp = (row: SentEmailRow, error: string) =>
    counted("failed", row, {
      status: "failed",
      failedAt: sql`now()`,
      ...withAttemptError(row, error),
      ...outOfHands(row),
    });

  /**
   * Makes a claimed row due again now, for another worker (or this process after a restart) instead of after the
   * lease. Unsent, the claim is not counted as an attempt; possibly sent (cut short), it is.
   */
  const handBack = (row: SentEmailRow, options: { unsent: boolean }) =>
    finish(row, {
      status: "queued",
      nextAttemptAt: sql`now()`,
      ...(options.unsent ? { attempts: sql`${sentEmails.attempts} - 1` } : {}),
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

  const deliver = async (row: SentEmailRow, delivery: Delivery | undefined): Promise<void> => {
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
    if (stopped) {
      await handBack(row, { unsent: true });
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

  const deliverDue = async (): Promise<void> => {
    await renderDueEmails(deps, { stopping: () => stopped });
    while (!stopped) {
      const claimed = await claimBatch();
      if (claimed.length === 0) return;
      // What is over a project's hourly capacity goes back to the queue until a slot frees (capacity.ts).
      const batch = await withinCapacity(deps, claimed);
      for (const row of batch) held.add(row);
      const deliveries = await deliveriesFor(batch).catch((error: unknown) => {
        for (const row of batch) held.delete(row);
        throw error;
      });
      await Promise.all(
        batch.map((row) => deliver(row, deliveries.get(row.projectId)).finally(() => held.delete(row))),
      );
      if (claimed.length < settings.batchSize) return;
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
          await deliverDue();
        } while (runAgain && !stopped);
      } finally {
        running = null;
      }
    })();
    return running;
  };

  const runInBackground = () => {
    if (stopped) return;
    run().catch((error) => console.error("Email delivery failed:", error));
  };

  const timer = setInterval(runInBackground, settings.intervalMs);
  timer.unref();
  runInBackground();

  return {
    wake: runInBackground,
    drain: async () => {
      await settleAfterAnswer(deps);
      if (!stopped) await run();
    },
    isRunning: () => !stopped,
    stop: async (stopOptions = {}) => {
      stopped = true;
      clearInterval(timer);
      // Work after an answer only queues mail (which stays in the outbox for the next start); let it finish first.
      const settled = settleAfterAnswer(deps).then(() => running?.catch(() => {}));
      if (!(await settlesWithin(settled, stopOptions.handBackAfterMs))) {
        await Promise.all([...held].map((row) => handBack(row, { unsent: false }).catch(() => {})));
      }
      transports.closeAll();
    },
  };
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
