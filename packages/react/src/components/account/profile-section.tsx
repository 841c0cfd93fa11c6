import { useState } from "react";
import { useStrings } from "../../context.ts";
import { useUser } from "../../hooks.ts";
import { TextField } from "../../internal/fields.tsx";
import { Avatar, Button, Section } from "../../internal/ui.tsx";
import { useSaveForm } from "../../internal/use-action.ts";

export function ProfileSection() {
  const s = useStrings();
  const user = useUser({ or: "throw", includeRestricted: true });
  const [name, setName] = useState(user.displayName ?? "");
  const { action, saved, setSaved, onSubmit } = useSaveForm(async () => {
    await user.setDisplayName(name.trim() === "" ? null : name.trim());
  });
  return (
    <Section id="profile" title={s.sectionProfile} description={s.profileDescription}>
      <div className="gh-row-actions" style={{ gap: 16 }}>
        <Avatar name={user.displayName ?? user.primaryEmail} imageUrl={user.profileImageUrl} large />
        <div className="gh-list-main">
          <strong>{user.displayName ?? user.primaryEmail}</strong>
          {user.primaryEmail ? <span className="gh-muted">{user.primaryEmail}</span> : null}
        </div>
      </div>
      <form className="gh-inline-form" onSubmit={onSubmit} noValidate>
        <TextField
          label={s.displayName}
          name="displayName"
          autoComplete="name"
          placeholder={s.displayNamePlaceholder}
          value={name}
          onValueChange={(value) => {
            setName(value);
            setSaved(false);
            action.reset();
          }}
          error={action.error}
          maxLength={256}
        />
        <Button type="submit" loading={action.pending} style={{ marginTop: 25 }}>
          {saved ? s.saved : s.save}
        </Button>
      </form>
    </Section>
  );
}
