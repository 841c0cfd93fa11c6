import { and, desc, eq, sql } from "drizzle-orm";
import type { AppDeps } from "../deps.ts";
import { sentEmails } from "../features/emails/schema.ts";

/** A harness server, or anything else with the deps of a running Gatehouse (e.g. a listening server's). */
type WithDb = { deps: Pick<AppDeps, "db"> };

/** The emails a project queued for an address, newest first (read straight from the outbox table). */
export async function emailsTo(server: WithDb, projectId: string, address: string) {
  return server.deps.db
    .select()
    .from(sentEmails)
    .where(
      and(
        eq(sentEmails.projectId, projectId),
        sql`${sentEmails.to} @> ${JSON.stringify([address.toLowerCase()])}::jsonb`,
      ),
    )
    .orderBy(desc(sentEmails.createdAt));
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
