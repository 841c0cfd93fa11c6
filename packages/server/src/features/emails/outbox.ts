import { randomUuid } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { type SentEmailRow, sentEmails } from "./schema.ts";

export type OutgoingEmail = {
  to: string[];
  subject: string;
  html: string;
  text: string;
  kind: string;
  userId?: string | null;
};

/**
 * Puts a rendered email in the outbox. Delivery happens in the outbox worker (worker.ts), so a slow or broken
 * SMTP server never slows down or fails the request that caused the email.
 */
export async function enqueueEmail(
  deps: AppDeps,
  projectId: string,
  email: OutgoingEmail,
): Promise<SentEmailRow> {
  const [row] = await deps.db
    .insert(sentEmails)
    .values({
      projectId,
      id: randomUuid(),
      userId: email.userId ?? null,
      to: email.to,
      subject: email.subject,
      html: email.html,
      text: email.text,
      kind: email.kind,
    })
    .returning();
  deps.emailWorker?.wake();
  return row!;
}
