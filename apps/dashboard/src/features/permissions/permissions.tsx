import { Button } from "@gatehouse/react/ui";
import { type FormEvent, useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { AsyncCard } from "../../ui/async.tsx";
import { ActionButton, Card, Empty, Field, PageHead, Table } from "../../ui/components.tsx";
import { TextField } from "../../ui/fields.tsx";
import { useAsync, useSubmit } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { ConfirmButton, Modal } from "../../ui/modal.tsx";
import { usePageTitle } from "../../ui/page-title.ts";
import { useToast } from "../../ui/toast.tsx";

type Definition = { id: string; description?: string; containedPermissionIds: string[] };
type Kind = "team" | "project";

/** One permission and, below it, everything it contains (a permission met twice on a path is not expanded). */
function PermissionTree(props: { id: string; byId: Map<string, Definition>; path: string[] }) {
  const definition = props.byId.get(props.id);
  const children = definition?.containedPermissionIds ?? [];
  const cycle = props.path.includes(props.id);
  return (
    <li>
      <span className={`perm-node${props.id.startsWith("$") ? " system" : ""}`}>{props.id}</span>
      {definition?.description ? <span className="muted small"> {definition.description}</span> : null}
      {children.length > 0 && !cycle ? (
        <ul className="tree">
          {children.map((child) => (
            <PermissionTree key={child} id={child} byId={props.byId} path={[...props.path, props.id]} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

export function PermissionsPage() {
  const [kind, setKind] = useState<Kind>("team");
  // Bumped when definitions change, so the default-permission lists offer the new ones.
  const [version, setVersion] = useState(0);
  return (
    <>
      <PageHead
        title="Permissions"
        description="Define what users may do, in a team or across the project. A permission can contain others."
      />
      <div className="tabs" role="tablist">
        {(["team", "project"] as const).map((tab) => (
          <button
            type="button"
            key={tab}
            role="tab"
            aria-selected={kind === tab}
            className={`tab${kind === tab ? " active" : ""}`}
            onClick={() => setKind(tab)}
          >
            {tab === "team" ? "Team permissions" : "Project permissions"}
          </button>
        ))}
      </div>
      <Definitions key={kind} kind={kind} onChanged={() => setVersion((v) => v + 1)} />
      <DefaultPermissions key={version} />
    </>
  );
}

function Definitions({ kind, onChanged }: { kind: Kind; onChanged: () => void }) {
  const { app } = useProjectContext();
  usePageTitle("Permissions");
  const list = async () => {
    const result = await (kind === "team"
      ? app.listTeamPermissionDefinitions()
      : app.listProjectPermissionDefinitions());
    onChanged();
    return result;
  };
  const definitions = useAsync(list, [app, kind]);
  const [editing, setEditing] = useState<Definition | "new" | null>(null);
  const byId = new Map((definitions.data ?? []).map((definition) => [definition.id, definition]));
  const contained = new Set(
    (definitions.data ?? []).flatMap((definition) => definition.containedPermissionIds),
  );
  const roots = (definitions.data ?? []).filter((definition) => !contained.has(definition.id));
  return (
    <div className="grid2">
      <AsyncCard
        title={kind === "team" ? "Team permission definitions" : "Project permission definitions"}
        actions={
          <Button small onClick={() => setEditing("new")}>
            <Icon name="plus" /> Create permission
          </Button>
        }
        flush
        state={definitions}
        rows={4}
        empty={
          <Empty icon={<Icon name="shield" size={22} />} title="No permissions yet">
            Create one, e.g. <code>read_reports</code>.
          </Empty>
        }
      >
        {(all) => (
          <Table testId={`${kind}-definitions`}>
            <tbody>
              {all.map((definition) => (
                <tr key={definition.id}>
                  <td>
                    <span className={`perm-node${definition.id.startsWith("$") ? " system" : ""}`}>
                      {definition.id}
                    </span>
                    <div className="muted small">{definition.description}</div>
                    {definition.containedPermissionIds.length > 0 ? (
                      <div className="muted small">
                        Contains {definition.containedPermissionIds.join(", ")}
                      </div>
                    ) : null}
                  </td>
                  <td style={{ textAlign: "right", whiteSpace: "nowrap", verticalAlign: "top" }}>
                    {definition.id.startsWith("$") ? (
                      <span className="muted small">Built in</span>
                    ) : (
                      <>
                        <Button small variant="ghost" onClick={() => setEditing(definition)}>
                          Edit
                        </Button>
                        <ConfirmButton
                          small
                          label="Delete"
                          title={`Delete ${definition.id}?`}
                          description="Everyone who holds it loses it, and permissions containing it no longer do."
                          success="Permission deleted"
                          onConfirm={async () => {
                            if (kind === "team") await app.deleteTeamPermissionDefinition(definition.id);
                            else await app.deleteProjectPermissionDefinition(definition.id);
                            await definitions.reload();
                          }}
                        />
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </AsyncCard>
      <Card title="Graph" description="Each permission with the permissions it contains.">
        {roots.length === 0 ? (
          <p className="muted">Nothing to show yet.</p>
        ) : (
          <ul className="tree root" data-testid={`${kind}-graph`}>
            {roots.map((root) => (
              <PermissionTree key={root.id} id={root.id} byId={byId} path={[]} />
            ))}
          </ul>
        )}
      </Card>
      {editing ? (
        <DefinitionModal
          kind={kind}
          existing={editing === "new" ? null : editing}
          all={definitions.data ?? []}
          onClose={() => setEditing(null)}
          onSaved={definitions.reload}
        />
      ) : null}
    </div>
  );
}

function DefinitionModal(props: {
  kind: Kind;
  existing: Definition | null;
  all: Definition[];
  onClose: () => void;
  onSaved: () => Promise<void>;
}) {
  const { app } = useProjectContext();
  const toast = useToast();
  const [id, setId] = useState(props.existing?.id ?? "");
  const [description, setDescription] = useState(props.existing?.description ?? "");
  const [contains, setContains] = useState(new Set(props.existing?.containedPermissionIds ?? []));
  const { busy, error, setError, run } = useSubmit();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = id.trim();
    if (!/^[a-z0-9_:]+$/i.test(trimmed)) {
      setError("Use letters, digits, underscores and colons.");
      return;
    }
    if (!props.existing && props.all.some((definition) => definition.id === trimmed)) {
      setError(`A permission with the ID "${trimmed}" already exists.`);
      return;
    }
    const options = { id: trimmed, description: description.trim(), containedPermissionIds: [...contains] };
    await run(async () => {
      if (props.existing) {
        if (props.kind === "team") await app.updateTeamPermissionDefinition(props.existing.id, options);
        else await app.updateProjectPermissionDefinition(props.existing.id, options);
      } else if (props.kind === "team") await app.createTeamPermissionDefinition(options);
      else await app.createProjectPermissionDefinition(options);
      toast.success(props.existing ? "Permission saved" : "Permission created");
      await props.onSaved();
      props.onClose();
    });
  };
  return (
    <Modal title={props.existing ? `Edit ${props.existing.id}` : "Create permission"} onClose={props.onClose}>
      <form className="stack" onSubmit={submit} style={{ gap: 14 }}>
        <TextField
          label="Permission ID"
          error={error}
          name="permissionId"
          value={id}
          className={error ? "invalid" : ""}
          onChange={setId}
          placeholder="read_reports"
        />
        <TextField
          label="Description"
          name="permissionDescription"
          value={description}
          onChange={setDescription}
        />
        <Field label="Contains">
          <div className="stack" style={{ maxHeight: 180, overflowY: "auto" }}>
            {props.all
              .filter((definition) => definition.id !== props.existing?.id)
              .map((definition) => (
                <label key={definition.id} className="checkbox">
                  <input
                    type="checkbox"
                    name={`contains-${definition.id}`}
                    checked={contains.has(definition.id)}
                    onChange={(e) => {
                      const next = new Set(contains);
                      if (e.target.checked) next.add(definition.id);
                      else next.delete(definition.id);
                      setContains(next);
                    }}
                  />
                  <span className="perm-node">{definition.id}</span>
                </label>
              ))}
          </div>
        </Field>
        <div className="row end">
          <Button variant="secondary" onClick={props.onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={busy}>
            {props.existing ? "Save" : "Create permission"}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

const DEFAULT_SETS = [
  {
    key: "teamCreatorDefaultPermissions",
    kind: "team",
    title: "Team creator",
    description: "Granted to whoever creates a team.",
  },
  {
    key: "teamMemberDefaultPermissions",
    kind: "team",
    title: "Team member",
    description: "Granted to everyone who joins a team.",
  },
  {
    key: "userDefaultPermissions",
    kind: "project",
    title: "Every user",
    description: "Project permissions every new user gets.",
  },
] as const;

function DefaultPermissions() {
  const { app, project, refresh } = useProjectContext();
  const toast = useToast();
  const team = useAsync(() => app.listTeamPermissionDefinitions(), [app]);
  const projectDefs = useAsync(() => app.listProjectPermissionDefinitions(), [app]);
  return (
    <Card title="Default permissions" description="What users get automatically.">
      <div className="grid3">
        {DEFAULT_SETS.map((set) => {
          const definitions = (set.kind === "team" ? team.data : projectDefs.data) ?? [];
          const current = new Set(project.config[set.key].map((permission) => permission.id));
          return (
            <div key={set.key} className="stack" data-testid={`defaults-${set.key}`}>
              <div>
                <strong>{set.title}</strong>
                <p className="muted small">{set.description}</p>
              </div>
              {definitions.length === 0 ? (
                <p className="muted small">No {set.kind} permissions defined.</p>
              ) : null}
              {definitions.map((definition) => (
                <label key={definition.id} className="checkbox">
                  <input
                    type="checkbox"
                    checked={current.has(definition.id)}
                    onChange={async (e) => {
                      const next = new Set(current);
                      if (e.target.checked) next.add(definition.id);
                      else next.delete(definition.id);
                      try {
                        await project.update({ config: { [set.key]: [...next].map((id) => ({ id })) } });
                        await refresh();
                        toast.success("Default permissions saved");
                      } catch (error) {
                        toast.error(error);
                      }
                    }}
                  />
                  <span className="perm-node">{definition.id}</span>
                </label>
              ))}
            </div>
          );
        })}
      </div>
      <div className="row end">
        <ActionButton small variant="ghost" onClick={refresh}>
          Refresh
        </ActionButton>
      </div>
    </Card>
  );
}
