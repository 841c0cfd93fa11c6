import type { CurrentUser, InternalApiKeyFirstView } from "@gatehouse/js";
import { Button } from "@gatehouse/react/ui";
import { type FormEvent, useState } from "react";
import { ownerMethods } from "../../gatehouse.ts";
import { projectPath } from "../../project-context.tsx";
import { Link, navigate } from "../../router.tsx";
import { KeysOnce } from "../../shared/keys-once.tsx";
import { Card } from "../../ui/components.tsx";
import { TextField } from "../../ui/fields.tsx";
import { errorMessage } from "../../ui/hooks.ts";
import { BrandMark } from "../../ui/icons.tsx";

/** Long enough to never bother a newcomer; they can revoke or replace the set on the Keys page. */
const FIRST_KEYS_LIFETIME_MS = 100 * 365 * 24 * 3600 * 1000;

async function ownerTeamId(user: CurrentUser): Promise<string> {
  if (user.selectedTeamId) return user.selectedTeamId;
  const teams = await user.listTeams();
  if (teams[0]) return teams[0].id;
  return (await user.createTeam({ displayName: "Personal team" })).id;
}

/** First run (no project yet) and "Create project" later: a name, then the project's first keys, shown once. */
export function CreateProjectPage(props: {
  user: CurrentUser;
  firstRun: boolean;
  onCreated: () => Promise<void>;
}) {
  const [name, setName] = useState(props.firstRun ? "My first app" : "");
  const [description, setDescription] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ id: string; name: string; keys: InternalApiKeyFirstView } | null>(
    null,
  );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) {
      setError("Give the project a name.");
      return;
    }
    setBusy(true);
    setError(null);
    // Move to /new-project first: creating the owner's first team changes the user, which reloads the project list,
    // and a list that already holds the new project would send "/" on to it, unmounting this page before it shows
    // the keys (they are shown only once).
    navigate("/new-project", { replace: true });
    try {
      const project = await ownerMethods(props.user).createProject({
        displayName: name.trim(),
        description: description.trim() || null,
        teamId: await ownerTeamId(props.user),
      });
      const keys = await project.app.createInternalApiKey({
        description: "First keys, created with the project",
        expiresAt: new Date(Date.now() + FIRST_KEYS_LIFETIME_MS),
        hasPublishableClientKey: true,
        hasSecretServerKey: true,
        hasSuperSecretAdminKey: false,
      });
      setCreated({ id: project.id, name: project.displayName, keys });
      await props.onCreated();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="auth-page" style={{ alignItems: "start" }}>
      <div className="onboarding" style={{ width: "min(640px, 100%)" }}>
        <div className="row" style={{ marginBottom: 18 }}>
          <BrandMark size={32} />
          <strong style={{ fontSize: 16 }}>Gatehouse</strong>
          <span style={{ flex: 1 }} />
          {!props.firstRun && !created ? <Link to="/">Back to dashboard</Link> : null}
        </div>
        <div className="steps">
          <div className="step done" />
          <div className={`step${created ? " done" : ""}`} />
        </div>
        {created ? (
          <Card
            title={`${created.name} is ready`}
            description="Put these values in your app's environment to connect it to Gatehouse."
            footer={<Button onClick={() => navigate(projectPath(created.id))}>Go to the project</Button>}
          >
            <KeysOnce projectId={created.id} keys={created.keys} />
          </Card>
        ) : (
          <form onSubmit={submit}>
            <Card
              title={props.firstRun ? "Welcome! Let's create your first project" : "Create a project"}
              description="A project holds one app's users, teams, settings and keys."
              footer={
                <Button type="submit" loading={busy}>
                  Create project
                </Button>
              }
            >
              <TextField
                label="Project name"
                error={error}
                name="displayName"
                value={name}
                onChange={setName}
                placeholder="Acme web app"
              />
              <TextField
                label="Description"
                hint="Optional; only you and your team see it."
                name="description"
                value={description}
                onChange={setDescription}
              />
            </Card>
          </form>
        )}
      </div>
    </div>
  );
}
