import type { ContactChannel } from "@gatehouse/js";
import { type FormEvent, useState } from "react";
import { useStrings } from "../../context.ts";
import { useContactChannels, useUser } from "../../hooks.ts";
import { describeError, reportUnexpected } from "../../internal/errors.ts";
import { TextField } from "../../internal/fields.tsx";
import { Alert, Button, Section } from "../../internal/ui.tsx";
import { useAction } from "../../internal/use-action.ts";
import { validateEmail } from "../../internal/validation.ts";

export function EmailsSection() {
  const s = useStrings();
  return (
    <Section id="emails" title={s.sectionEmails} description={s.emailsDescription}>
      <EmailList />
      <AddEmailForm />
    </Section>
  );
}

function EmailList() {
  const s = useStrings();
  const channels = useContactChannels();
  const [status, setStatus] = useState<{ error?: string; info?: string }>({});
  const [run, pending] = useAction();
  const act = (action: () => Promise<void>, info?: string) =>
    run(async () => {
      try {
        await action();
        setStatus(info ? { info } : {});
      } catch (caught) {
        reportUnexpected(caught);
        setStatus({ error: describeError(caught, s).message });
      }
    });
  if (channels.length === 0) return <p className="gh-empty">{s.noEmails}</p>;
  return (
    <div className="gh-stack-sm">
      {status.error ? <Alert>{status.error}</Alert> : null}
      {status.info ? <Alert tone="success">{status.info}</Alert> : null}
      <ul className="gh-list" aria-label={s.sectionEmails}>
        {channels.map((channel) => (
          <EmailRow key={channel.id} channel={channel} pending={pending} act={act} />
        ))}
      </ul>
    </div>
  );
}

function EmailRow({
  channel,
  pending,
  act,
}: {
  channel: ContactChannel;
  pending: boolean;
  act: (action: () => Promise<void>, info?: string) => Promise<void>;
}) {
  const s = useStrings();
  return (
    <li className="gh-list-item">
      <div className="gh-list-main">
        <span className="gh-list-title">
          {channel.value}
          {channel.isPrimary ? <span className="gh-badge gh-badge-primary">{s.primary}</span> : null}
          {channel.isVerified ? (
            <span className="gh-badge gh-badge-success">{s.verified}</span>
          ) : (
            <span className="gh-badge">{s.unverified}</span>
          )}
          {channel.usedForAuth ? <span className="gh-badge">{s.usedForSignIn}</span> : null}
        </span>
      </div>
      <div className="gh-row-actions">
        {!channel.isVerified ? (
          <Button
            small
            variant="secondary"
            disabled={pending}
            onClick={() => act(() => channel.sendVerificationEmail(), s.verificationSent)}
          >
            {s.sendVerification}
          </Button>
        ) : null}
        {channel.isVerified && !channel.isPrimary ? (
          <Button
            small
            variant="secondary"
            disabled={pending}
            onClick={() => act(() => channel.update({ isPrimary: true }))}
          >
            {s.makePrimary}
          </Button>
        ) : null}
        {channel.isVerified ? (
          <Button
            small
            variant="ghost"
            disabled={pending}
            onClick={() => act(() => channel.update({ usedForAuth: !channel.usedForAuth }))}
          >
            {channel.usedForAuth ? s.stopUsingForSignIn : s.useForSignIn}
          </Button>
        ) : null}
        {!channel.isPrimary ? (
          <Button
            small
            variant="danger-outline"
            disabled={pending}
            onClick={() => act(() => channel.delete())}
          >
            {s.remove}
          </Button>
        ) : null}
      </div>
    </li>
  );
}

function AddEmailForm() {
  const s = useStrings();
  const user = useUser({ or: "throw", includeRestricted: true });
  const [email, setEmail] = useState("");
  const [status, setStatus] = useState<{ error?: string; info?: string }>({});
  const [run, pending] = useAction();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const error = validateEmail(email, s);
    if (error) return setStatus({ error });
    void run(async () => {
      try {
        const channel = await user.createContactChannel({
          value: email.trim(),
          type: "email",
          usedForAuth: false,
        });
        await channel.sendVerificationEmail();
        setEmail("");
        setStatus({ info: s.verificationSent });
      } catch (caught) {
        reportUnexpected(caught);
        setStatus({ error: describeError(caught, s).message });
      }
    });
  };
  return (
    <form className="gh-stack-sm" onSubmit={onSubmit} noValidate>
      {status.info ? <Alert tone="success">{status.info}</Alert> : null}
      <div className="gh-inline-form">
        <TextField
          label={s.newEmail}
          type="email"
          name="newEmail"
          placeholder={s.emailPlaceholder}
          value={email}
          onValueChange={(value) => {
            setEmail(value);
            setStatus({});
          }}
          error={status.error}
        />
        <Button type="submit" variant="secondary" loading={pending} style={{ marginTop: 25 }}>
          {s.addEmail}
        </Button>
      </div>
    </form>
  );
}
