import { randomUuid } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { redactMessage, sealMessage } from "./body.ts";
import { type SentEmailRow, sentEmails } from "./schema.ts";

export type OutgoingEmail = {
  to: string[];
  subject: string;
  html: string;
  text: string;
  kind: string;
  userId?: string | null;
  /**
   * The one-time secrets in the message (links, codes), taken out of the stored copy. Links with parameters and
   * 45-character codes are taken out anyway; name anything else a reader of a backup must not see.
   */
  secrets?: readonly string[];
};

/**
 * Puts a rendered email in the outbox. Delivery happens in the outbox worker (worker.ts), so a slow or broken
 * SMTP server never slows down or fails the request that caused the email. The row gets the redacted copy in the
 * clear and the real message sealed (body.ts): no code is ever written to the table in plain text.
 */
export async function enqueueEmail(
  deps: AppDeps,
  projectId: string,
  email: OutgoingEmail,
): Promise<SentEmailRow> {
  const message = { subject: email.subject, html: email.html, text: email.text };
  const [row] = await deps.db
    .insert(sentEmails)
    .values({
      projectId,
      id: randomUuid(),
      userId: email.userId ?? null,
      to: email.to,
      ...redactMessage(message, email.secrets ?? []),
      bodyEncrypted: sealMessage(deps.env, message),
      kind: email.kind,
    })
    .returning();
  deps.emailWorker?.wake();
  return row!;
}
