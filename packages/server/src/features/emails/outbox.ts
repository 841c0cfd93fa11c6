import { randomUuid } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { redactMessage, sealMessage, sealVariables } from "./body.ts";
import { recipientUserId } from "./recipients.ts";
import { type EmailRecipient, type SentEmailRow, sentEmails } from "./schema.ts";

/** An email to render from a template (TSX) in the outbox worker. */
export type TemplateEmail = {
  recipient: EmailRecipient;
  /** The template's TSX, as it is now: later edits of the template do not change an email already queued. */
  tsxSource: string;
  /** The theme to render in (already resolved from the template's or sender's choice); null for none. */
  themeId: string | null;
  templateId?: string | null;
  /** The email draft it is sent from (`created_with: "draft"`), if any. */
  draftId?: string | null;
  variables: Record<string, unknown>;
  subjectOverride?: string | null;
  notificationCategoryId?: string | null;
  isHighPriority?: boolean;
  scheduledAt?: Date;
  /** Which built-in email or API call produced it, e.g. `email_verification` or `send-email`. */
  kind: string;
};

/** Rows per INSERT: a send to every user of a large project is split so no statement carries thousands of rows. */
const INSERT_CHUNK = 500;

/**
 * Queues emails to be rendered and sent by the outbox worker (worker.ts, render-step.ts). Rendering runs there, not
 * in the request: an owner's template renders in the sandbox, which takes a good part of a second. The variables
 * are sealed (body.ts): they carry the codes and links of the built-in emails.
 */
export async function enqueueTemplateEmails(
  deps: AppDeps,
  projectId: string,
  emails: readonly TemplateEmail[],
): Promise<SentEmailRow[]> {
  const inserted: SentEmailRow[] = [];
  for (let start = 0; start < emails.length; start += INSERT_CHUNK) {
    const chunk = emails.slice(start, start + INSERT_CHUNK);
    const rows = await deps.db
      .insert(sentEmails)
      .values(
        chunk.map((email) => ({
          projectId,
          id: randomUuid(),
          userId: recipientUserId(email.recipient),
          to: email.recipient.type === "user-primary-email" ? [] : email.recipient.emails,
          recipient: email.recipient,
          status: "preparing" as const,
          tsxSource: email.tsxSource,
          themeId: email.themeId,
          templateId: email.templateId ?? null,
          ...(email.draftId ? { draftId: email.draftId, createdWith: "draft" as const } : {}),
          variablesEncrypted: sealVariables(deps.env, email.variables),
          subjectOverride: email.subjectOverride ?? null,
          notificationCategoryId: email.notificationCategoryId ?? null,
          isHighPriority: email.isHighPriority ?? false,
          ...(email.scheduledAt ? { scheduledAt: email.scheduledAt } : {}),
          kind: email.kind,
        })),
      )
      .returning();
    inserted.push(...rows);
  }
  if (inserted.length > 0) deps.emailWorker?.wake();
  return inserted;
}

/** An email rendered by the caller (the owner's security notices, which are not project templates). */
export type RenderedOutgoingEmail = {
  to: string[];
  subject: string;
  html: string;
  text: string;
  kind: string;
  userId?: string | null;
};

/**
 * Puts an already rendered email in the outbox, ready to send. The row gets the redacted copy in the clear and the
 * real message sealed (body.ts).
 */
export async function enqueueRenderedEmail(
  deps: AppDeps,
  projectId: string,
  email: RenderedOutgoingEmail,
): Promise<SentEmailRow> {
  const message = { subject: email.subject, html: email.html, text: email.text };
  const [row] = await deps.db
    .insert(sentEmails)
    .values({
      projectId,
      id: randomUuid(),
      userId: email.userId ?? null,
      to: email.to,
      recipient: { type: "custom-emails", emails: email.to },
      ...redactMessage(message, []),
      bodyEncrypted: sealMessage(deps.env, message),
      kind: email.kind,
      status: "queued",
      isHighPriority: true,
      isTransactional: true,
      priority: 110,
      renderedAt: new Date(),
    })
    .returning();
  deps.emailWorker?.wake();
  return row!;
}
