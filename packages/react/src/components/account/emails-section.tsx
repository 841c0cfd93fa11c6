import type { ContactChannel } from "@gatehouse/js";
import { type FormEvent, useState } from "react";
import { useStrings } from "../../context.ts";
import { useContactChannels, useUser } from "../../hooks.ts";
import { TextField } from "../../internal/fields.tsx";
import { Alert, Button, Section } from "../../internal/ui.tsx";
import { useFormAction } from "../../internal/use-action.ts";
import { validateEmail } from "../../internal/validation.ts";
import { List, ListRow } from "../../ui/list.tsx";

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
  const [info, setInfo] = useState<string>();
  const action = useFormAction();
  const act = (change: () => Promise<void>, done?: string) =>
    action.run(async () => {
      setInfo(undefined);
      await change();
      setInfo(done);
    });
  if (channels.length === 0) return <p className="gh-empty">{s.noEmails}</p>;
  return (
    <div className="gh-stack-sm">
      {action.error ? <Alert>{action.error}</Alert> : null}
      {info ? <Alert tone="success">{info}</Alert> : null}
      <List label={s.sectionEmails}>
        {channels.map((channel) => (
          <EmailRow key={channel.id} channel={channel} pending={action.pending} act={act} />
        ))}
      </List>
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
    <ListRow
      title={
        <>
          {channel.value}
          {channel.isPrimary ? <span className="gh-badge gh-badge-primary">{s.primary}</span> : null}
          {channel.isVerified ? (
            <span className="gh-badge gh-badge-success">{s.verified}</span>
          ) : (
            <span className="gh-badge">{s.unverified}</span>
          )}
          {channel.usedForAuth ? <span className="gh-badge">{s.usedForSignIn}</span> : null}
        </>
      }
      actions={
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
      }
    />
  );
}

function AddEmailForm() {
  const s = useStrings();
  const user = useUser({ or: "throw", includeRestricted: true });
  const [email, setEmail] = useState("");
  const [invalid, setInvalid] = useState<string>();
  const [sent, setSent] = useState(false);
  const action = useFormAction();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const error = validateEmail(email, s);
    setInvalid(error);
    setSent(false);
    if (error) return action.reset();
    void action.run(async () => {
      const channel = await user.createContactChannel({
        value: email.trim(),
        type: "email",
        usedForAuth: false,
      });
      await channel.sendVerificationEmail();
      setEmail("");
      setSent(true);
    });
  };
  return (
    <form className="gh-stack-sm" onSubmit={onSubmit} noValidate>
      {sent ? <Alert tone="success">{s.verificationSent}</Alert> : null}
      <div className="gh-inline-form">
        <TextField
          label={s.newEmail}
          type="email"
          name="newEmail"
          placeholder={s.emailPlaceholder}
          value={email}
          onValueChange={(value) => {
            setEmail(value);
            setInvalid(undefined);
            setSent(false);
            action.reset();
          }}
          error={invalid ?? action.error}
        />
        <Button type="submit" variant="secondary" loading={action.pending} style={{ marginTop: 25 }}>
          {s.addEmail}
        </Button>
      </div>
    </form>
  );
}
