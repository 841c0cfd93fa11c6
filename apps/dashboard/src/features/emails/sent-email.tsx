import type { AdminEmailOutbox } from "@gatehouse/js";
import { formatDate, LabelValues } from "@gatehouse/react/ui";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link } from "../../router.tsx";
import { DetailPage } from "../../ui/async.tsx";
import { ActionButton, Card, PageHead, Table } from "../../ui/components.tsx";
import { ConfirmButton } from "../../ui/modal.tsx";
import { PageTitle, usePageTitle } from "../../ui/page-title.ts";
import { OutboxStatusBadge, problemOf, recipientText, skipReasonWords } from "./sent-email-status.tsx";

/** The statuses in which an email can still be paused, changed or cancelled (PROTOCOL-EXTRA §1.9). */
const EDITABLE = new Set([
  "paused",
  "preparing",
  "rendering",
  "render-error",
  "scheduled",
  "queued",
  "server-error",
]);

const CATEGORY_NAMES: Record<string, string> = {
  "7bb82d33-2f54-4a3d-9d23-82739e0d66ef": "Transactional",
  "4f6f8873-3d04-46bd-8bef-18338b1a1b4c": "Marketing",
};

type Step = { at: Date; label: string; detail?: string; tone?: "danger" | "success" };

/** What happened to the email, in time order. */
function timeline(email: AdminEmailOutbox): Step[] {
  const e = email as AdminEmailOutbox & Record<string, unknown>;
  const steps: Step[] = [{ at: email.createdAt, label: "Queued" }];
  if (email.scheduledAt.getTime() > email.createdAt.getTime() + 1000) {
    steps.push({ at: email.scheduledAt, label: "Scheduled to go out" });
  }
  if (e.startedRenderingAt instanceof Date)
    steps.push({ at: e.startedRenderingAt, label: "Rendering started" });
  if (e.renderedAt instanceof Date) {
    steps.push(
      email.status === "render-error"
        ? { at: e.renderedAt, label: "Rendering failed", detail: String(e.renderError ?? ""), tone: "danger" }
        : { at: e.renderedAt, label: "Rendered" },
    );
  }
  for (const attempt of email.sendAttemptErrors ?? []) {
    steps.push({
      at: new Date(attempt.timestamp),
      label: `Attempt ${attempt.attemptNumber} failed`,
      detail: attempt.externalMessage,
      tone: "danger",
    });
  }
  if (email.status === "sent" && e.deliveredAt instanceof Date) {
    steps.push({ at: e.deliveredAt, label: "Accepted by the email server", tone: "success" });
  }
  if (email.status === "server-error" && e.errorAt instanceof Date) {
    steps.push({ at: e.errorAt, label: "Gave up", detail: String(e.serverError ?? ""), tone: "danger" });
  }
  if (email.status === "skipped") {
    steps.push({
      at: email.skippedAt,
      label: "Skipped",
      detail: `Not sent: ${skipReasonWords(email.skippedReason)}.`,
    });
  }
  return steps.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** Missing and malformed ids are the same "not found" page. */
function notFoundIsNull(error: unknown): null {
  const status = (error as { status?: number } | null)?.status;
  if (status === 404 || status === 400) return null;
  throw error;
}

/** One email of the outbox: to whom, its status and history, what it looks like, and pause / cancel. */
export function SentEmailPage({ emailId }: { emailId: string }) {
  const { app, project } = useProjectContext();
  usePageTitle("Sent email");
  const crumb = <Link to={projectPath(project.id, "sent-emails")}>← Sent emails</Link>;
  return (
    <DetailPage
      noun="email"
      load={() => app.getOutboxEmail(emailId).catch(notFoundIsNull)}
      deps={[app, emailId]}
      crumb={crumb}
    >
      {(email, reload) => {
        const rendered = email as AdminEmailOutbox & {
          subject?: string;
          html?: string | null;
          isDevInbox?: boolean;
        };
        const editable = EDITABLE.has(email.status);
        const problem = problemOf(email);
        const category =
          rendered.subject === undefined
            ? "—"
            : (CATEGORY_NAMES[
                String((email as { notificationCategoryId?: string }).notificationCategoryId)
              ] ?? "Not set");
        return (
          <>
            <PageTitle parts={[rendered.subject || "Email", "Sent emails"]} />
            <PageHead
              crumb={crumb}
              title={rendered.subject || "Email"}
              description={`To ${recipientText(email)}`}
              actions={
                <>
                  <OutboxStatusBadge email={email} />
                  {editable && email.status !== "paused" ? (
                    <ActionButton
                      variant="secondary"
                      success="Email paused"
                      onClick={async () => {
                        await app.pauseOutboxEmail(email.id);
                        await reload();
                      }}
                    >
                      Pause
                    </ActionButton>
                  ) : null}
                  {email.status === "paused" ? (
                    <ActionButton
                      variant="secondary"
                      success="Email resumed"
                      onClick={async () => {
                        await app.unpauseOutboxEmail(email.id);
                        await reload();
                      }}
                    >
                      Resume
                    </ActionButton>
                  ) : null}
                  {editable ? (
                    <ConfirmButton
                      label="Cancel email"
                      title="Cancel this email?"
                      description="It will not be sent. This cannot be undone."
                      success="Email cancelled"
                      onConfirm={async () => {
                        await app.cancelOutboxEmail(email.id);
                        await reload();
                      }}
                    />
                  ) : null}
                </>
              }
            />
            {problem ? (
              <div className={`alert ${alertTone(email)}`} data-testid="email-problem">
                {problem}
              </div>
            ) : null}
            <div className="grid2">
              <Card title="Details">
                <LabelValues
                  rows={[
                    {
                      label: "Recipient",
                      value: (
                        <>
                          {recipientText(email)}
                          {email.to.type !== "custom-emails" ? (
                            <>
                              {" "}
                              <Link to={projectPath(project.id, `users/${email.to.userId}`)}>View user</Link>
                            </>
                          ) : null}
                        </>
                      ),
                      testId: "email-recipient",
                    },
                    { label: "Subject", value: rendered.subject || "—" },
                    { label: "Category", value: category },
                    { label: "Made by", value: kindWords(email.kind) },
                    { label: "Created", value: formatDate(email.createdAt) },
                    {
                      label: "Attempts",
                      value: (email.sendAttemptErrors?.length ?? 0) + (email.status === "sent" ? 1 : 0),
                    },
                  ]}
                />
              </Card>
              <Card title="Timeline" flush>
                <Table testId="email-timeline">
                  <tbody>
                    {timeline(email).map((step) => (
                      <tr key={`${step.label}-${step.at.getTime()}`}>
                        <td className="muted small" style={{ whiteSpace: "nowrap" }}>
                          {formatDate(step.at)}
                        </td>
                        <td>
                          <strong className={step.tone === "danger" ? "danger-text" : undefined}>
                            {step.label}
                          </strong>
                          {step.detail ? <div className="small muted">{step.detail}</div> : null}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </Table>
              </Card>
            </div>
            <Card
              title="The email"
              description={
                rendered.isDevInbox
                  ? "Development's inbox: no SMTP server is set, so the email is kept here as sent. Its links open in a new tab."
                  : "As rendered for this recipient; links and codes are redacted."
              }
            >
              {rendered.html ? (
                <iframe
                  title="Rendered email"
                  data-testid="sent-email-preview"
                  // No scripts either way. The dev inbox's links must work (they finish a verification or sign-in),
                  // so they may open a new tab, outside the sandbox, as a mail client would open them.
                  sandbox={rendered.isDevInbox ? "allow-popups allow-popups-to-escape-sandbox" : ""}
                  srcDoc={rendered.isDevInbox ? linksInNewTabs(rendered.html) : rendered.html}
                  style={{
                    width: "100%",
                    height: 520,
                    border: "1px solid var(--border)",
                    borderRadius: 8,
                    background: "#fff",
                  }}
                />
              ) : (
                <p className="muted">
                  {email.status === "render-error" ? "It did not render." : "Not rendered yet."}
                </p>
              )}
            </Card>
          </>
        );
      }}
    </DetailPage>
  );
}

/** Red for a failure, amber while a failed delivery is retried, blue for a skip. */
function alertTone(email: AdminEmailOutbox): string {
  if (email.simpleStatus === "error") return "danger";
  return email.status === "skipped" ? "info" : "warning";
}

function kindWords(kind: string): string {
  if (kind === "html") return "Sent to users as HTML";
  if (kind === "template") return "Sent to users from a template";
  return `Gatehouse (${kind.replace(/_/g, " ")})`;
}

/** The email's HTML with every link opening in a new tab (a `<base target>` in its head). */
function linksInNewTabs(html: string): string {
  const base = '<base target="_blank">';
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (head) => head + base) : base + html;
}
