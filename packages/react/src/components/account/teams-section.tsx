import { useState } from "react";
import { useStrings } from "../../context.ts";
import { useGatehouseApp, useProject, useTeams, useUser } from "../../hooks.ts";
import { SectionBoundary } from "../../internal/boundary.tsx";
import { PlusIcon } from "../../internal/icons.tsx";
import { appNavigate } from "../../internal/router.ts";
import { Avatar, Button, Loading, Section } from "../../internal/ui.tsx";
import { List, ListRow } from "../../ui/list.tsx";
import { CreateTeamForm } from "../teams/create-team.tsx";

/** The address of one team's settings inside account settings. */
export function teamSettingsHref(accountSettings: string, teamId: string): string {
  return `${accountSettings}?team=${encodeURIComponent(teamId)}`;
}

export function TeamsSection() {
  const s = useStrings();
  const project = useProject();
  const [creating, setCreating] = useState(false);
  return (
    <Section id="teams" title={s.sectionTeams} description={s.teamsDescription}>
      <SectionBoundary fallback={<Loading />}>
        <TeamList />
      </SectionBoundary>
      {project.config.clientTeamCreationEnabled ? (
        creating ? (
          <CreateTeamForm onCreated={() => setCreating(false)} onCancel={() => setCreating(false)} />
        ) : (
          <div>
            <Button variant="secondary" onClick={() => setCreating(true)}>
              <PlusIcon />
              {s.createTeam}
            </Button>
          </div>
        )
      ) : null}
    </Section>
  );
}

function TeamList() {
  const s = useStrings();
  const app = useGatehouseApp();
  const user = useUser({ or: "throw", includeRestricted: true });
  const teams = useTeams();
  if (teams.length === 0) return <p className="gh-empty">{s.noTeams}</p>;
  return (
    <List label={s.sectionTeams}>
      {teams.map((team) => (
        <ListRow
          key={team.id}
          leading={<Avatar name={team.displayName} imageUrl={team.profileImageUrl} team />}
          title={
            <>
              {team.displayName}
              {team.id === user.selectedTeamId ? (
                <span className="gh-badge gh-badge-primary">{s.selectedTeam}</span>
              ) : null}
            </>
          }
          actions={
            <Button
              small
              variant="secondary"
              onClick={() => appNavigate(app, teamSettingsHref(app.urls.accountSettings, team.id))}
            >
              {s.openTeamSettings}
            </Button>
          }
        />
      ))}
    </List>
  );
}
