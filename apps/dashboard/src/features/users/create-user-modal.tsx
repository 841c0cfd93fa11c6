import { Button } from "@gatehouse/react/ui";
import { type FormEvent, useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { navigate } from "../../router.tsx";
import { FormError } from "../../ui/components.tsx";
import { describeError, looksLikeEmail } from "../../ui/errors.ts";
import { Modal } from "../../ui/modal.tsx";
import { useToast } from "../../ui/toast.tsx";
import "./users.css";
import { Checkbox, TextField } from "../../ui/fields.tsx";

export function CreateUserModal(props: { onClose: () => void; onCreated: () => Promise<void> }) {
  const { app, project } = useProjectContext();
  const toast = useToast();
  const [email, setEmail] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [password, setPassword] = useState("");
  const [verified, setVerified] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (email.trim() && !looksLikeEmail(email.trim())) {
      setError("Enter a valid e-mail address, like name@example.com.");
      return;
    }
    setBusy(true);
    try {
      const user = await app.createUser({
        primaryEmail: email.trim() || null,
        primaryEmailVerified: verified,
        primaryEmailAuthEnabled: email.trim() !== "",
        ...(displayName.trim() ? { displayName: displayName.trim() } : {}),
        ...(password ? { password } : {}),
      });
      toast.success("User created");
      await props.onCreated();
      props.onClose();
      navigate(projectPath(project.id, `users/${user.id}`));
    } catch (caught) {
      const described = describeError(caught, {
        primary_email: "E-mail",
        display_name: "Display name",
        password: "Password",
      });
      setError(Object.values(described.fields)[0] ?? described.message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title="Create user"
      description="The user can sign in with this email (and password, if you set one)."
      onClose={props.onClose}
    >
      <form className="stack" onSubmit={submit} style={{ gap: 14 }}>
        <TextField label="Email" type="email" name="email" value={email} onChange={setEmail} />
        <TextField label="Display name" name="displayName" value={displayName} onChange={setDisplayName} />
        <TextField
          label="Password"
          hint="Optional."
          type="password"
          name="password"
          value={password}
          onChange={setPassword}
        />
        <Checkbox checked={verified} onChange={setVerified}>
          Email is verified
        </Checkbox>
        <FormError error={error} />
        <div className="row end">
          <Button variant="secondary" onClick={props.onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={busy}>
            Create user
          </Button>
        </div>
      </form>
    </Modal>
  );
}
