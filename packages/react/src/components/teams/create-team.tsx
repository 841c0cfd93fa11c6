import type { Team } from "@gatehouse/js";
import { type FormEvent, useState } from "react";
import { useStrings } from "../../context.ts";
import { useProject, useUser } from "../../hooks.ts";
import { SectionBoundary } from "../../internal/boundary.tsx";
import { TextField } from "../../internal/fields.tsx";
import { Alert, Button, Root } from "../../internal/ui.tsx";
import { useFormAction } from "../../internal/use-action.ts";
import { required } from "../../internal/validation.ts";

export type CreateTeamProps = {
  /** Called with the new team (which also becomes the selected team). */
  onCreated?: (team: Team) => void;
  /** Hide the Cancel button by leaving this out. */
  onCancel?: () => void;
};

/** A small form that creates a team for the signed-in user and selects it. */
export function CreateTeam(props: CreateTeamProps) {
  return (
    <Root>
      <SectionBoundary>
        <CreateTeamForm {...props} />
      </SectionBoundary>
    </Root>
  );
}

export function CreateTeamForm({ onCreated, onCancel }: CreateTeamProps) {
  const s = useStrings();
  const project = useProject();
  const user = useUser({ or: "throw", includeRestricted: true });
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string>();
  const [created, setCreated] = useState<string | null>(null);
  const action = useFormAction();

  if (!project.config.clientTeamCreationEnabled)
    return <Alert tone="info">{s.clientTeamCreationDisabled}</Alert>;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const error = required(name, s);
    setNameError(error);
    action.reset();
    if (error) return;
    void action.run(async () => {
      const team = await user.createTeam({ displayName: name.trim() });
      await user.setSelectedTeam(team);
      setCreated(team.displayName);
      setName("");
      onCreated?.(team);
    });
  };

  return (
    <form className="gh-form" onSubmit={onSubmit} noValidate aria-label={s.createTeamTitle}>
      {created ? <Alert tone="success">{s.teamCreated(created)}</Alert> : null}
      {action.error ? <Alert>{action.error}</Alert> : null}
      <TextField
        label={s.teamName}
        name="teamName"
        placeholder={s.teamNamePlaceholder}
        value={name}
        onValueChange={setName}
        error={nameError}
        maxLength={200}
      />
      <div className="gh-row-actions gh-row-actions-end">
        {onCancel ? (
          <Button variant="secondary" onClick={onCancel}>
            {s.cancel}
          </Button>
        ) : null}
        <Button type="submit" loading={action.pending}>
          {s.createTeam}
        </Button>
      </div>
    </form>
  );
}
