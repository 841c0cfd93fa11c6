import { and, desc, eq, sql } from "drizzle-orm";
import type { AppDeps } from "../deps.ts";
import { settleAfterAnswer } from "../features/emails/after-answer.ts";
import { readableEmail } from "../features/emails/body.ts";
import { renderDueEmails } from "../features/emails/render-step.ts";
import { sentEmails } from "../features/emails/schema.ts";

/** A harness server, or anything else with the deps of a running Gatehouse (e.g. a listening server's). */
type WithDb = { deps: Pick<AppDeps, "db" | "env"> };

/**
 * The emails a project queued for an address, newest first, as their recipient reads them: the outbox rows with the
 * sealed message opened (tests run in development, where the dev outbox keeps it; features/emails/body.ts). Email
 * work a request left running after its answer (password reset) finishes first, so a test can read right after
 * the request, and queued emails are rendered. Use the table itself to see what is stored.
 */
export async function emailsTo(server: WithDb, projectId: string, address: string) {
  await settleAfterAnswer(server.deps);
  // Queued emails are rendered by the outbox worker. A listening server runs one: wait for its current run, which
  // renders (and sends) what is due. The harness runs none: render here, as the worker would before sending.
  const worker = (server.deps as Partial<AppDeps>).emailWorker as { drain?: () => Promise<void> } | undefined;
  if (worker?.drain) await worker.drain();
  else await renderInTurn(server.deps);
  const rows = await server.deps.db
    .select()
    .from(sentEmails)
    .where(
      and(
        eq(sentEmails.projectId, projectId),
        sql`${sentEmails.to} @> ${JSON.stringify([address.toLowerCase()])}::jsonb`,
      ),
    )
    .orderBy(desc(sentEmails.createdAt));
  return rows.map((row) => readableEmail(server.deps.env, row));
}

/**
 * Harness renders run one after another per server. A render claims its rows for a lease, so a second render
 * started meanwhile finds nothing due and returns at once: a test reading mails in parallel (two sign-ups racing)
 * would then see a row the first render has not finished.
 */
const harnessRenders = new WeakMap<object, Promise<unknown>>();

function renderInTurn(deps: WithDb["deps"]): Promise<unknown> {
  const previous = harnessRenders.get(deps) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => renderDueEmails(deps));
  harnessRenders.set(deps, next);
  return next;
}

/** The newest email to an address, or a clear failure. */
export async function latestEmailTo(server: WithDb, projectId: string, address: string) {
  const [email] = await emailsTo(server, projectId, address);
  if (!email) throw new Error(`No email was sent to ${address}`);
  return email;
}

/** Pulls the `code` query parameter out of the first link in a text that has one. */
export function codeFromEmail(text: string): string {
  const match = /[?&]code=([0-9a-z]{45})/i.exec(text);
  if (!match) throw new Error(`No code link in email:\n${text}`);
  return match[1]!;
}
