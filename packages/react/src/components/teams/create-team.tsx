import type { Team } from "@gatehouse/js";
import { type FormEvent, useState } from "react";
import { useStrings } from "../../context.ts";
import { useProject, useUser } from "../../hooks.ts";
import { SectionBoundary } from "../../internal/boundary.tsx";
import { describeError, reportUnexpected } from "../../internal/errors.ts";
import { TextField } from "../../internal/fields.tsx";
import { Alert, Button, Root } from "../../internal/ui.tsx";
import { useAction } from "../../internal/use-action.ts";
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
  const [errors, setErrors] = useState<{ name?: string | undefined; form?: string | undefined }>({});
  const [created, setCreated] = useState<string | null>(null);
  const [run, pending] = useAction();

  if (!project.config.clientTeamCreationEnabled)
    return <Alert tone="info">{s.clientTeamCreationDisabled}</Alert>;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const error = required(name, s);
    setErrors({ name: error });
    if (error) return;
    void run(async () => {
      try {
        const team = await user.createTeam({ displayName: name.trim() });
        await user.setSelectedTeam(team);
        setCreated(team.displayName);
        setName("");
        onCreated?.(team);
      } catch (caught) {
        reportUnexpected(caught);
        setErrors({ form: describeError(caught, s).message });
      }
    });
  };

  return (
    <form className="gh-form" onSubmit={onSubmit} noValidate aria-label={s.createTeamTitle}>
      {created ? <Alert tone="success">{s.teamCreated(created)}</Alert> : null}
      {errors.form ? <Alert>{errors.form}</Alert> : null}
      <TextField
        label={s.teamName}
        name="teamName"
        placeholder={s.teamNamePlaceholder}
        value={name}
        onValueChange={setName}
        error={errors.name}
        maxLength={200}
      />
      <div className="gh-row-actions gh-row-actions-end">
        {onCancel ? (
          <Button variant="secondary" onClick={onCancel}>
            {s.cancel}
          </Button>
        ) : null}
        <Button type="submit" loading={pending}>
          {s.createTeam}
        </Button>
      </div>
    </form>
  );
}
