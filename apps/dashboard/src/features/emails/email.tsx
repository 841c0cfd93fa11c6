import { buttonClass, formatDate } from "@gatehouse/react/ui";
import { useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link } from "../../router.tsx";
import { AsyncCard } from "../../ui/async.tsx";
import { ActionButton, Card, Empty, Field, PageHead, rowClick, Table } from "../../ui/components.tsx";
import { Select, TextField, useFieldState } from "../../ui/fields.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { usePageTitle } from "../../ui/page-title.ts";
import { SentEmailState } from "./sent-email-status.tsx";

export function EmailPage() {
  const { app, project, refresh } = useProjectContext();
  const current = project.config.emailConfig;
  const standard = current?.type === "standard" ? current : null;
  const [type, setType] = useState<"shared" | "standard">(standard ? "standard" : "shared");
  const [host, setHost] = useState(standard?.host ?? "");
  const [port, setPort] = useState(String(standard?.port ?? 587));
  const [username, setUsername] = useState(standard?.username ?? "");
  const [password, setPassword] = useState(standard?.password ?? "");
  const [senderEmail, setSenderEmail] = useState(standard?.senderEmail ?? "");
  const [senderName, setSenderName] = useState(standard?.senderName ?? project.displayName);
  const recipient = useFieldState("");
  const [testResult, setTestResult] = useState<{ ok: boolean; message: string } | null>(null);
  const emails = useAsync(() => app.listSentEmails(), [app]);
  usePageTitle("Email");
  const smtp = { host, port: Number(port), username, password, senderEmail, senderName };
  const smtpIncomplete = !host || !Number.isInteger(Number(port)) || !senderEmail;

  return (
    <>
      <PageHead
        title="Email"
        description="The server that sends sign-in codes, verification and invitation emails."
      />
      <div className="grid2">
        <Card
          title="Email server"
          footer={
            <ActionButton
              success="Email server saved"
              disabled={type === "standard" && smtpIncomplete}
              onClick={async () => {
                await project.update({
                  config: {
                    emailConfig: type === "shared" ? { type: "shared" } : { type: "standard", ...smtp },
                  },
                });
                await refresh();
              }}
            >
              Save
            </ActionButton>
          }
        >
          <Field label="Server">
            <Select name="emailType" value={type} onChange={setType}>
              <option value="shared">Shared Gatehouse server (development)</option>
              <option value="standard">My own SMTP server</option>
            </Select>
          </Field>
          {type === "standard" ? (
            <>
              <div className="row">
                <div style={{ flex: 3 }}>
                  <TextField label="Host" name="smtpHost" value={host} onChange={setHost} />
                </div>
                <div style={{ flex: 1 }}>
                  <TextField label="Port" type="number" name="smtpPort" value={port} onChange={setPort} />
                </div>
              </div>
              <TextField label="Username" name="smtpUsername" value={username} onChange={setUsername} />
              <TextField
                label="Password"
                type="password"
                name="smtpPassword"
                value={password}
                onChange={setPassword}
              />
              <TextField
                label="Sender email"
                type="email"
                name="senderEmail"
                value={senderEmail}
                onChange={setSenderEmail}
              />
              <TextField label="Sender name" name="senderName" value={senderName} onChange={setSenderName} />
            </>
          ) : (
            <div className="alert info">
              Emails come from Gatehouse's own sender. Use your own server in production.
            </div>
          )}
        </Card>
        <Card
          title="Send a test email"
          description="Tries the SMTP settings on the left, before or after saving."
        >
          <TextField label="Recipient" type="email" name="testRecipient" {...recipient} />
          <div className="row end">
            <ActionButton
              variant="secondary"
              disabled={!recipient.value.trim() || type !== "standard" || smtpIncomplete}
              onClick={async () => {
                const result = await app.sendTestEmail({
                  recipientEmail: recipient.value.trim(),
                  emailConfig: smtp,
                });
                setTestResult(
                  result.status === "ok"
                    ? { ok: true, message: `Sent to ${recipient.value.trim()}.` }
                    : { ok: false, message: result.error.errorMessage },
                );
              }}
            >
              Send test email
            </ActionButton>
          </div>
          {type !== "standard" ? (
            <p className="muted small">Choose your own SMTP server to test it.</p>
          ) : null}
          {testResult ? (
            <div className={`alert ${testResult.ok ? "success" : "danger"}`} data-testid="test-email-result">
              {testResult.ok ? "✓ " : "✗ "}
              {testResult.message}
            </div>
          ) : null}
        </Card>
      </div>
      <AsyncCard
        title="Sent emails"
        description="The project's outbox, newest first."
        actions={
          <Link
            className={buttonClass({ variant: "secondary", small: true })}
            to={projectPath(project.id, "sent-emails")}
          >
            All sent emails
          </Link>
        }
        flush
        state={emails}
        rows={4}
        empty={<Empty icon={<Icon name="mail" size={22} />} title="No emails sent yet" />}
      >
        {(sent) => (
          <Table testId="sent-emails">
            <thead>
              <tr>
                <th>To</th>
                <th>Subject</th>
                <th>Sent</th>
                <th>Status</th>
              </tr>
            </thead>
            <tbody>
              {sent.map((email) => (
                <tr
                  key={email.id}
                  className="clickable"
                  onClick={rowClick(projectPath(project.id, `sent-emails/${email.id}`))}
                >
                  <td>
                    <Link to={projectPath(project.id, `sent-emails/${email.id}`)} className="row-link">
                      {email.to.join(", ")}
                    </Link>
                  </td>
                  <td>{email.subject}</td>
                  <td className="muted">{formatDate(email.sentAt)}</td>
                  <td>
                    <SentEmailState email={email} />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </AsyncCard>
    </>
  );
}
