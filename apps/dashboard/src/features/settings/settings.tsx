import { Button } from "@gatehouse/react/ui";
import { productionModeChecks } from "@gatehouse/shared";
import { useEffect, useState } from "react";
import { ownerMethods } from "../../gatehouse.ts";
import { useProjectContext } from "../../project-context.tsx";
import { navigate } from "../../router.tsx";
import { ActionButton, Badge, Card, Field, PageHead } from "../../ui/components.tsx";
import { Select, TextField } from "../../ui/fields.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { JsonEditor } from "../../ui/json-editor.tsx";
import { ConfirmButton, Modal } from "../../ui/modal.tsx";
import { usePageTitle } from "../../ui/page-title.ts";
import { LogoField } from "./logo-field.tsx";

export function SettingsPage() {
  const { project, refresh } = useProjectContext();
  usePageTitle("Project settings");
  const [name, setName] = useState(project.displayName);
  const [description, setDescription] = useState(project.description ?? "");
  const [logoUrl, setLogoUrl] = useState(project.logoUrl ?? "");
  const [logoDarkUrl, setLogoDarkUrl] = useState(project.logoDarkModeUrl ?? "");
  // What the server stored: a picked image comes back as the URL it is served from.
  useEffect(() => setLogoUrl(project.logoUrl ?? ""), [project.logoUrl]);
  useEffect(() => setLogoDarkUrl(project.logoDarkModeUrl ?? ""), [project.logoDarkModeUrl]);
  return (
    <>
      <PageHead title="Project settings" description={`Project ID ${project.id}`} />
      <Card
        title="General"
        footer={
          <ActionButton
            success="Settings saved"
            disabled={!name.trim()}
            onClick={async () => {
              await project.update({
                displayName: name.trim(),
                description: description.trim() || null,
                logoUrl: logoUrl.trim() || null,
                logoDarkModeUrl: logoDarkUrl.trim() || null,
              });
              await refresh();
            }}
          >
            Save
          </ActionButton>
        }
      >
        <div className="grid2">
          <TextField label="Name" name="projectName" value={name} onChange={setName} />
          <TextField
            label="Description"
            name="projectDescription"
            value={description}
            onChange={setDescription}
          />
          <LogoField
            label="Logo"
            name="logoUrl"
            value={logoUrl}
            onChange={setLogoUrl}
            hint="Shown on sign-in pages."
          />
          <LogoField
            label="Logo for dark mode"
            name="logoDarkUrl"
            value={logoDarkUrl}
            onChange={setLogoDarkUrl}
          />
        </div>
      </Card>
      <ProductionMode />
      <RawConfig />
      <DangerZone />
    </>
  );
}

function ProductionMode() {
  const { project, refresh } = useProjectContext();
  const [open, setOpen] = useState(false);
  const problems = productionModeChecks({
    allowLocalhost: project.config.allowLocalhost,
    trustedDomains: project.config.domains.map((domain) => domain.domain),
  });
  return (
    <Card
      title="Production mode"
      description="Stricter checks for live apps: no localhost, only HTTPS domains."
      actions={
        project.isProductionMode ? <Badge tone="success">On</Badge> : <Badge tone="warning">Off</Badge>
      }
    >
      <div className="row">
        {project.isProductionMode ? (
          <ActionButton
            variant="secondary"
            success="Production mode turned off"
            onClick={async () => {
              await project.update({ isProductionMode: false });
              await refresh();
            }}
          >
            Turn off production mode
          </ActionButton>
        ) : (
          <Button onClick={() => setOpen(true)}>Go to production…</Button>
        )}
      </div>
      {open ? (
        <Modal
          title="Production checklist"
          description="Everything below must pass before the project can go to production."
          onClose={() => setOpen(false)}
          footer={
            <>
              <Button variant="secondary" onClick={() => setOpen(false)}>
                Cancel
              </Button>
              <ActionButton
                disabled={problems.length > 0}
                success="Production mode on"
                onClick={async () => {
                  await project.update({ isProductionMode: true });
                  await refresh();
                  setOpen(false);
                }}
              >
                Turn on production mode
              </ActionButton>
            </>
          }
        >
          <ul className="checklist" data-testid="production-checklist">
            {problems.length === 0 ? (
              <li>
                <Badge tone="success">✓</Badge> All checks pass.
              </li>
            ) : (
              problems.map((problem) => (
                <li key={`${problem.code}-${problem.domain ?? ""}`}>
                  <Badge tone="danger">✗</Badge> {problem.message}
                </li>
              ))
            )}
          </ul>
        </Modal>
      ) : null}
    </Card>
  );
}

function RawConfig() {
  const { project, refresh } = useProjectContext();
  const rendered = useAsync(() => project.getConfig(), [project]);
  const override = useAsync(() => project.getConfigOverride("environment"), [project]);
  return (
    <div className="grid2">
      <Card title="Rendered config" description="What the project runs with (read-only).">
        <textarea
          readOnly
          aria-label="Rendered config (JSON)"
          rows={16}
          value={rendered.data ? JSON.stringify(rendered.data, null, 2) : "Loading…"}
        />
      </Card>
      <Card
        title="Config overrides"
        description="The environment-level override, replaced as a whole on save."
      >
        {override.data ? (
          <JsonEditor
            key={JSON.stringify(override.data)}
            name="configOverride"
            label="Override (JSON object)"
            object
            rows={16}
            value={override.data}
            onSave={async (value) => {
              await project.replaceConfigOverride("environment", (value ?? {}) as Record<string, unknown>);
              await Promise.all([refresh(), override.reload(), rendered.reload()]);
            }}
          />
        ) : (
          <p className="muted">Loading…</p>
        )}
      </Card>
    </div>
  );
}

function DangerZone() {
  const { project, user, reloadProjects } = useProjectContext();
  const teams = useAsync(() => user.listTeams(), [user]);
  const [teamId, setTeamId] = useState("");
  const others = (teams.data ?? []).filter((team) => team.id !== project.ownerTeamId);
  return (
    <Card title="Danger zone">
      <div className="row" style={{ alignItems: "flex-end" }}>
        <div style={{ flex: 1 }}>
          <Field label="Transfer to another of your teams">
            <Select
              name="transferTeam"
              value={teamId}
              onChange={setTeamId}
              placeholder={others.length ? "Choose a team…" : "You have no other team"}
              options={others.map((team) => [team.id, team.displayName] as const)}
            />
          </Field>
        </div>
        <ConfirmButton
          label="Transfer"
          title="Transfer this project?"
          description="Members of the other team become its owners; your current team loses access unless you are in both."
          success="Project transferred"
          onConfirm={async () => {
            if (!teamId) throw new Error("Choose a team first.");
            await ownerMethods(user).transferProject(project.id, teamId);
            await reloadProjects();
          }}
        />
      </div>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <div>
          <strong>Delete this project</strong>
          <p className="muted small">Its users, teams, keys and settings are removed for good.</p>
        </div>
        <ConfirmButton
          label="Delete project"
          title={`Delete ${project.displayName}?`}
          description="This cannot be undone."
          typeToConfirm={project.displayName}
          success="Project deleted"
          onConfirm={async () => {
            await project.delete();
            await reloadProjects();
            navigate("/");
          }}
        />
      </div>
    </Card>
  );
}
