import { and, desc, eq, sql } from "drizzle-orm";
import type { AppDeps } from "../deps.ts";
import { settleAfterAnswer } from "../features/emails/after-answer.ts";
import { readableEmail } from "../features/emails/body.ts";
import { sentEmails } from "../features/emails/schema.ts";

/** A harness server, or anything else with the deps of a running Gatehouse (e.g. a listening server's). */
type WithDb = { deps: Pick<AppDeps, "db" | "env"> };

/**
 * The emails a project queued for an address, newest first, as their recipient reads them: the outbox rows with the
 * sealed message opened (tests run in development, where the dev outbox keeps it; features/emails/body.ts). Email
 * work a request left running after its answer (password reset) finishes first, so a test can read right after
 * the request. Use the table itself to see what is stored.
 */
export async function emailsTo(server: WithDb, projectId: string, address: string) {
  await settleAfterAnswer(server.deps);
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
