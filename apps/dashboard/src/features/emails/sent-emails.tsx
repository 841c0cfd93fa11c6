import type { AdminEmailOutboxSimpleStatus, AdminEmailOutboxStatus } from "@gatehouse/js";
import { Button, formatDate, Pager, useCursorPages } from "@gatehouse/react/ui";
import { useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link } from "../../router.tsx";
import { AsyncCard } from "../../ui/async.tsx";
import { Empty, PageHead, rowClick, Table } from "../../ui/components.tsx";
import { Select } from "../../ui/fields.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { usePageTitle } from "../../ui/page-title.ts";
import { SendEmailDialog } from "./send-email-dialog.tsx";
import { OutboxStatusBadge, problemOf, recipientText, STATUS_FILTERS } from "./sent-email-status.tsx";

const PAGE_SIZE = 25;

const SIMPLE_FILTERS: { value: AdminEmailOutboxSimpleStatus; label: string }[] = [
  { value: "in-progress", label: "On its way" },
  { value: "ok", label: "Done" },
  { value: "error", label: "Failed" },
];

/** The project's outbox, newest first, filtered by status, a page at a time; and sending email to users. */
export function SentEmailsPage() {
  const { app, project } = useProjectContext();
  const [status, setStatus] = useState<AdminEmailOutboxStatus | "">("");
  const [simpleStatus, setSimpleStatus] = useState<AdminEmailOutboxSimpleStatus | "">("");
  const [sending, setSending] = useState(false);
  usePageTitle("Sent emails");
  // A new filter starts again at the first page.
  const pages = useCursorPages([status, simpleStatus]);
  const { cursor } = pages;
  const emails = useAsync(
    () =>
      app.listOutboxEmails({
        limit: PAGE_SIZE,
        ...(status ? { status } : {}),
        ...(simpleStatus ? { simpleStatus } : {}),
        ...(cursor ? { cursor } : {}),
      }),
    [app, status, simpleStatus, cursor],
  );
  const filtered = status !== "" || simpleStatus !== "";

  return (
    <>
      <PageHead
        crumb={<Link to={projectPath(project.id, "email")}>← Email</Link>}
        title="Sent emails"
        description="Every email the project sends, newest first: sign-in codes, invitations and your own."
        actions={
          <>
            <Button variant="secondary" onClick={() => void emails.reload()}>
              Refresh
            </Button>
            <Button onClick={() => setSending(true)}>
              <Icon name="mail" /> Send email to users
            </Button>
          </>
        }
      />
      <AsyncCard
        flush
        state={emails}
        rows={6}
        testId="sent-emails-card"
        isEmpty={(page) => page.items.length === 0}
        toolbar={
          <div className="row" style={{ flex: 1 }}>
            <Select
              name="statusFilter"
              aria-label="Status"
              value={status}
              onChange={setStatus}
              style={{ maxWidth: 240 }}
              placeholder="Any status"
              options={STATUS_FILTERS.map((option) => [option.value, option.label] as const)}
            />
            <Select
              name="simpleStatusFilter"
              aria-label="Outcome"
              value={simpleStatus}
              onChange={setSimpleStatus}
              style={{ maxWidth: 200 }}
              placeholder="Any outcome"
              options={SIMPLE_FILTERS.map((option) => [option.value, option.label] as const)}
            />
          </div>
        }
        empty={
          <Empty icon={<Icon name="mail" size={22} />} title={filtered ? "No emails match" : "No emails yet"}>
            {filtered
              ? "Try another status."
              : "Emails appear here as the project sends them, or send one to your users yourself."}
          </Empty>
        }
        footer={
          <Pager page={pages.page} onPrevious={pages.previous} onNext={pages.next(emails.data?.nextCursor)} />
        }
      >
        {(page) => (
          <Table testId="sent-emails-table">
            <thead>
              <tr>
                <th>To</th>
                <th>Subject</th>
                <th>Status</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody style={{ opacity: emails.loading ? 0.6 : 1 }}>
              {page.items.map((email) => {
                const problem = problemOf(email);
                return (
                  <tr
                    key={email.id}
                    className="clickable"
                    data-email-id={email.id}
                    onClick={rowClick(projectPath(project.id, `sent-emails/${email.id}`))}
                  >
                    <td>
                      <Link to={projectPath(project.id, `sent-emails/${email.id}`)} className="row-link">
                        {recipientText(email)}
                      </Link>
                    </td>
                    <td>
                      {"subject" in email && email.subject ? email.subject : <span className="muted">—</span>}
                    </td>
                    <td>
                      <OutboxStatusBadge email={email} />
                      {problem ? <div className="small muted">{problem}</div> : null}
                    </td>
                    <td className="muted">{formatDate(email.createdAt)}</td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
        )}
      </AsyncCard>
      {sending ? <SendEmailDialog onClose={() => setSending(false)} onSent={emails.reload} /> : null}
    </>
  );
}
