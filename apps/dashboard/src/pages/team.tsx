import type { ServerTeam } from "@gatehouse/js";
import { useState } from "react";
import { projectPath, useProjectContext } from "../project-context.tsx";
import { Link, navigate } from "../router.tsx";
import {
  ActionButton,
  Avatar,
  Card,
  ConfirmButton,
  Empty,
  ErrorAlert,
  Field,
  formatDate,
  Loading,
  PageHead,
} from "../ui/components.tsx";
import { useAsync } from "../ui/hooks.ts";
import { MetadataCard } from "../ui/metadata-card.tsx";
import { Invitations, Members } from "./team-people.tsx";

export function TeamPage({ teamId }: { teamId: string }) {
  const { app, project } = useProjectContext();
  const team = useAsync(() => app.getTeam(teamId), [app, teamId]);
  const crumb = <Link to={projectPath(project.id, "teams")}>← Teams</Link>;
  if (team.error) return <ErrorAlert error={team.error} retry={team.reload} />;
  if (team.data === undefined) return <Loading rows={8} />;
  if (team.data === null) {
    return (
      <>
        <PageHead crumb={crumb} title="Team not found" />
        <Empty title="This team does not exist">It may have been deleted.</Empty>
      </>
    );
  }
  const t = team.data;
  return (
    <>
      <PageHead
        crumb={crumb}
        title={
          <span className="row" style={{ gap: 14 }}>
            <Avatar large name={t.displayName} seed={t.id} image={t.profileImageUrl} />
            <span>
              {t.displayName}
              <div className="muted small mono" style={{ fontWeight: 400 }}>
                {t.id} · created {formatDate(t.createdAt)}
              </div>
            </span>
          </span>
        }
        actions={
          <ConfirmButton
            label="Delete team"
            title={`Delete ${t.displayName}?`}
            description="Members stay users of the project; the team, its permissions and invitations are removed."
            confirmLabel="Delete team"
            typeToConfirm={t.displayName}
            success="Team deleted"
            onConfirm={async () => {
              await t.delete();
              navigate(projectPath(project.id, "teams"));
            }}
          />
        }
      />
      <TeamSettings team={t} reload={team.reload} />
      <Members team={t} />
      <Invitations team={t} />
      <MetadataCard
        owner="team"
        namePrefix="team"
        value={t}
        save={async (update) => {
          await t.update(update);
          await team.reload();
        }}
      />
    </>
  );
}

function TeamSettings({ team, reload }: { team: ServerTeam; reload: () => Promise<void> }) {
  const [name, setName] = useState(team.displayName);
  return (
    <Card title="Team">
      <div className="row" style={{ alignItems: "flex-end" }}>
        <div style={{ flex: 1 }}>
          <Field label="Display name">
            <input
              type="text"
              name="teamDisplayName"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </Field>
        </div>
        <ActionButton
          variant="primary"
          disabled={!name.trim() || name === team.displayName}
          success="Team renamed"
          onClick={async () => {
            await team.update({ displayName: name.trim() });
            await reload();
          }}
        >
          Save
        </ActionButton>
      </div>
    </Card>
  );
}
