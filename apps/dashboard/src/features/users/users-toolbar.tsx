import type { ServerUser } from "@gatehouse/js";
import { Button } from "@gatehouse/react/ui";
import { useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { errorMessage } from "../../ui/hooks.ts";
import { ConfirmButton } from "../../ui/modal.tsx";
import { useToast } from "../../ui/toast.tsx";
import "./users.css";
import { listAllUsers, type UsersView, usersCsv } from "./users-api.ts";

export function FilterSelect<T extends string>(props: {
  label: string;
  name: string;
  value: T | null;
  options: readonly (readonly [T, string])[];
  anyLabel?: string;
  onChange: (value: T | null) => void;
}) {
  return (
    <label className="filter-select">
      <span className="muted small">{props.label}</span>
      <select
        name={props.name}
        aria-label={props.label}
        value={props.value ?? ""}
        onChange={(e) => props.onChange(e.target.value ? (e.target.value as T) : null)}
      >
        <option value="">{props.anyLabel ?? "Any"}</option>
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Restrict or delete the selected users, each after a confirmation that says how many. */
export function BulkActions({ users, onDone }: { users: ServerUser[]; onDone: () => Promise<void> }) {
  const count = `${users.length} ${users.length === 1 ? "user" : "users"}`;
  const runAll = async (action: (user: ServerUser) => Promise<unknown>) => {
    const results = await Promise.allSettled(users.map(action));
    await onDone();
    const failed = results.filter((result) => result.status === "rejected").length;
    if (failed > 0) throw new Error(`${failed} of ${users.length} could not be changed; the others were.`);
  };
  return (
    <div className="row bulk-actions" data-testid="bulk-actions">
      <span className="small">{count} selected</span>
      <ConfirmButton
        small
        variant="primary"
        label="Restrict"
        title={`Restrict ${count}?`}
        description="Restricted users cannot use your app until you lift the restriction on their page."
        confirmLabel={`Restrict ${count}`}
        success={`Restricted ${count}`}
        onConfirm={() => runAll((user) => user.update({ restrictedByAdmin: true }))}
      />
      <ConfirmButton
        small
        label="Delete"
        title={`Delete ${count}?`}
        description="Their accounts, sessions and team memberships are deleted for good."
        confirmLabel={`Delete ${count}`}
        success={`Deleted ${count}`}
        onConfirm={() => runAll((user) => user.delete())}
      />
    </div>
  );
}

/** The users of the current filter as a CSV file, all pages of them, read through the list API. */
export function ExportButton({ view }: { view: UsersView }) {
  const { app, project } = useProjectContext();
  const toast = useToast();
  const [progress, setProgress] = useState<number | null>(null);
  const exportCsv = async () => {
    setProgress(0);
    try {
      const all = await listAllUsers(app, view, setProgress);
      const url = URL.createObjectURL(new Blob([usersCsv(all)], { type: "text/csv;charset=utf-8" }));
      const link = document.createElement("a");
      link.href = url;
      link.download = `users-${project.id}-${new Date().toISOString().slice(0, 10)}.csv`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      toast.success(`Exported ${all.length} ${all.length === 1 ? "user" : "users"}`);
    } catch (caught) {
      toast.error(errorMessage(caught));
    } finally {
      setProgress(null);
    }
  };
  return (
    <Button variant="secondary" onClick={exportCsv} loading={progress !== null}>
      {progress === null ? "Export CSV" : `Exporting… ${progress}`}
    </Button>
  );
}
