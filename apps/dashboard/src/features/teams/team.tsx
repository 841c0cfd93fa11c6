import type { ServerTeam } from "@gatehouse/js";
import { Avatar, avatarColor, formatDate } from "@gatehouse/react/ui";
import { useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link, navigate } from "../../router.tsx";
import { DetailPage } from "../../ui/async.tsx";
import { ActionButton, Card, PageHead } from "../../ui/components.tsx";
import { TextField } from "../../ui/fields.tsx";
import { MetadataCard } from "../../ui/metadata-card.tsx";
import { ConfirmButton } from "../../ui/modal.tsx";
import { PageTitle, usePageTitle } from "../../ui/page-title.ts";
import { Invitations, Members } from "./team-people.tsx";

export function TeamPage({ teamId }: { teamId: string }) {
  const { app, project } = useProjectContext();
  usePageTitle("Team");
  const crumb = <Link to={projectPath(project.id, "teams")}>← Teams</Link>;
  return (
    <DetailPage noun="team" load={() => app.getTeam(teamId)} deps={[app, teamId]} crumb={crumb}>
      {(t, reload) => (
        <>
          <PageTitle parts={[t.displayName, "Teams"]} />
          <PageHead
            crumb={crumb}
            title={
              <span className="row" style={{ gap: 14 }}>
                <Avatar large name={t.displayName} color={avatarColor(t.id)} imageUrl={t.profileImageUrl} />
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
                typeToConfirm={t.displayName}
                success="Team deleted"
                onConfirm={async () => {
                  await t.delete();
                  navigate(projectPath(project.id, "teams"));
                }}
              />
            }
          />
          <TeamSettings team={t} reload={reload} />
          <Members team={t} />
          <Invitations team={t} />
          <MetadataCard
            owner="team"
            namePrefix="team"
            value={t}
            save={async (update) => {
              await t.update(update);
              await reload();
            }}
          />
        </>
      )}
    </DetailPage>
  );
}

function TeamSettings({ team, reload }: { team: ServerTeam; reload: () => Promise<void> }) {
  const [name, setName] = useState(team.displayName);
  return (
    <Card title="Team">
      <div className="row" style={{ alignItems: "flex-end" }}>
        <div style={{ flex: 1 }}>
          <TextField label="Display name" name="teamDisplayName" value={name} onChange={setName} />
        </div>
        <ActionButton
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
