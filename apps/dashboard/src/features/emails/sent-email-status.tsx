import type { AdminEmailOutbox, AdminEmailOutboxStatus, AdminSentEmail } from "@gatehouse/js";
import { formatDate } from "@gatehouse/react/ui";
import { isKnownError } from "@gatehouse/shared";
import { projectPath } from "../../project-context.tsx";
import { Link } from "../../router.tsx";
import { Badge } from "../../ui/components.tsx";
import { errorMessage } from "../../ui/hooks.ts";

type Tone = "accent" | "success" | "danger" | "warning" | undefined;

/** Each outbox status in words, with its badge colour. */
export const STATUS_WORDS: Record<AdminEmailOutboxStatus, { label: string; tone: Tone }> = {
  paused: { label: "Paused", tone: "warning" },
  preparing: { label: "Queued", tone: "accent" },
  rendering: { label: "Queued", tone: "accent" },
  "render-error": { label: "Failed to render", tone: "danger" },
  scheduled: { label: "Scheduled", tone: "accent" },
  queued: { label: "Queued", tone: "accent" },
  sending: { label: "Sending", tone: "accent" },
  "server-error": { label: "Failed", tone: "danger" },
  skipped: { label: "Skipped", tone: undefined },
  bounced: { label: "Bounced", tone: "danger" },
  "delivery-delayed": { label: "Delayed", tone: "warning" },
  sent: { label: "Sent", tone: "success" },
  opened: { label: "Opened", tone: "success" },
  clicked: { label: "Clicked", tone: "success" },
  "marked-as-spam": { label: "Marked as spam", tone: "danger" },
};

/** A queued email whose last attempt failed: it is tried again later. */
const RETRYING = { label: "Failed, retrying", tone: "warning" as Tone };

/** The statuses an owner filters by, in the order an email goes through them. */
export const STATUS_FILTERS: { value: AdminEmailOutboxStatus; label: string }[] = [
  { value: "preparing", label: "Queued, not rendered yet" },
  { value: "scheduled", label: "Scheduled" },
  { value: "queued", label: "Queued" },
  { value: "sending", label: "Sending" },
  { value: "sent", label: "Sent" },
  { value: "server-error", label: "Failed" },
  { value: "render-error", label: "Failed to render" },
  { value: "skipped", label: "Skipped" },
  { value: "paused", label: "Paused" },
];

const SKIP_REASONS: Record<string, string> = {
  USER_UNSUBSCRIBED: "the user turned off this kind of email",
  USER_ACCOUNT_DELETED: "the user's account was deleted",
  USER_HAS_NO_PRIMARY_EMAIL: "the user has no primary email address",
  NO_EMAIL_PROVIDED: "there was no address to send to",
  LIKELY_NOT_DELIVERABLE: "the address looks undeliverable",
  MANUALLY_CANCELLED: "it was cancelled",
};

export function skipReasonWords(reason: string | null | undefined): string {
  return (reason && SKIP_REASONS[reason]) || "it was not sent";
}

/** What went wrong with an email, if anything: the render error, the last send error, or why it was skipped. */
export function problemOf(email: AdminEmailOutbox): string | null {
  if (email.status === "render-error") return `The email did not render: ${email.renderError}`;
  if (email.status === "skipped") return `Not sent: ${skipReasonWords(email.skippedReason)}.`;
  const errors = email.sendAttemptErrors ?? [];
  const last = errors[errors.length - 1];
  if (!last) return null;
  const attempts = `${errors.length} attempt${errors.length === 1 ? "" : "s"}`;
  if (email.status === "server-error") return `${last.externalMessage} (gave up after ${attempts})`;
  if (email.status === "sent") return null;
  const next = email.nextSendRetryAt ? `, next try ${formatDate(email.nextSendRetryAt)}` : "";
  return `${last.externalMessage} (${attempts} so far${next})`;
}

/** An outbox email's status badge; a queued email whose last try failed says it is retrying. */
export function OutboxStatusBadge({ email }: { email: AdminEmailOutbox }) {
  const retrying = email.status === "queued" && (email.sendAttemptErrors?.length ?? 0) > 0;
  const words = retrying ? RETRYING : STATUS_WORDS[email.status];
  return (
    <span data-testid="email-status" data-status={email.status}>
      <Badge tone={words.tone}>{words.label}</Badge>
    </span>
  );
}

/** Who an outbox email goes to, as an owner reads it: the addresses once known, else the user. */
export function recipientText(email: AdminEmailOutbox): string {
  if (email.recipients.length > 0) return email.recipients.join(", ");
  if (email.to.type === "custom-emails") return email.to.emails.join(", ") || "—";
  return `User ${email.to.userId.slice(0, 8)}…`;
}

/** The short list on the Email page (`/internal/emails`): the status and, for a problem, its words. */
export function SentEmailState({ email }: { email: AdminSentEmail }) {
  const retrying = email.status === "queued" && email.error != null;
  const words = retrying ? RETRYING : STATUS_WORDS[email.status];
  const attempts = `${email.attempts} attempt${email.attempts === 1 ? "" : "s"}`;
  const detail =
    email.status === "skipped"
      ? `Not sent: ${skipReasonWords(email.skippedReason)}.`
      : email.error != null
        ? `${String(email.error)} (${retrying ? `${attempts} so far, will retry` : `after ${attempts}`})`
        : null;
  return (
    <span data-testid="email-status" data-status={email.status}>
      <Badge tone={words.tone}>{words.label}</Badge>
      {detail ? <span className="small muted"> {detail}</span> : null}
    </span>
  );
}

/** Errors of sending, in words an owner can act on; the shared-server refusal links to the settings. */
export function SendErrorText({ error, projectId }: { error: unknown; projectId: string }) {
  if (isKnownError(error, "REQUIRES_CUSTOM_EMAIL_SERVER")) return <OwnServerNeeded projectId={projectId} />;
  if (isKnownError(error, "USER_ID_DOES_NOT_EXIST")) {
    return <>One of the chosen users no longer exists. Remove them and send again.</>;
  }
  if (isKnownError(error, "EMAIL_NOT_EDITABLE")) {
    return <>This email has already been sent or cancelled, so it can no longer be changed.</>;
  }
  return <>{errorMessage(error)}</>;
}

/** Why a project on the shared email server cannot email its users, with the way to its email settings. */
export function OwnServerNeeded({ projectId }: { projectId: string }) {
  return (
    <>
      Emails to users go out only through the project's own email server, and this project uses the shared
      one. <Link to={projectPath(projectId, "email")}>Set up an email server</Link> first.
    </>
  );
}
