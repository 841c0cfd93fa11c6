import { type FormEvent, useState } from "react";
import { useStrings } from "../../context.ts";
import { useGatehouseApp, useUser } from "../../hooks.ts";
import { TextField } from "../../internal/fields.tsx";
import { appNavigate } from "../../internal/router.ts";
import { Alert, Button, Section } from "../../internal/ui.tsx";
import { useFormAction } from "../../internal/use-action.ts";

export function DeleteAccountSection() {
  const s = useStrings();
  const app = useGatehouseApp();
  const user = useUser({ or: "throw", includeRestricted: true });
  const [confirm, setConfirm] = useState("");
  const [open, setOpen] = useState(false);
  // The typed word's check; the server's refusal is the action's.
  const [mistyped, setMistyped] = useState<string>();
  const action = useFormAction();
  const error = mistyped ?? action.error;
  const word = s.deleteAccountConfirmWord;
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (confirm.trim() !== word) {
      setMistyped(s.deleteAccountConfirmLabel(word));
      return;
    }
    setMistyped(undefined);
    void action.run(async () => {
      await user.delete();
      appNavigate(app, app.urls.afterSignOut, { replace: true });
    });
  };
  return (
    <Section id="delete-account" title={s.sectionDangerZone} description={s.deleteAccountDescription} danger>
      {open ? (
        <form className="gh-inline-form" onSubmit={onSubmit} noValidate>
          <TextField
            label={s.deleteAccountConfirmLabel(word)}
            name="confirmDelete"
            autoComplete="off"
            value={confirm}
            onValueChange={setConfirm}
            error={error}
          />
          <Button type="submit" variant="danger" loading={action.pending} style={{ marginTop: 25 }}>
            {s.deleteAccount}
          </Button>
        </form>
      ) : (
        <div>
          {error ? <Alert>{error}</Alert> : null}
          <Button variant="danger-outline" onClick={() => setOpen(true)}>
            {s.deleteAccount}
          </Button>
        </div>
      )}
    </Section>
  );
}
