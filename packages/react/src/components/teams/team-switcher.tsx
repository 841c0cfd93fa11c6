import type { Team } from "@gatehouse/js";
import { Suspense } from "react";
import { useStrings } from "../../context.ts";
import { useGatehouseApp, useProject, useTeams, useUser } from "../../hooks.ts";
import { ChevronDownIcon, PlusIcon } from "../../internal/icons.tsx";
import { Menu, MenuItem } from "../../internal/menu.tsx";
import { appNavigate } from "../../internal/router.ts";
import { Avatar, Root } from "../../internal/ui.tsx";

export type SelectedTeamSwitcherProps = {
  /** Called after the selection changed. */
  onChange?: (team: Team) => void;
  /** What "Create a team" does; by default it opens the teams section of account settings. */
  onCreateTeam?: () => void;
};

/** Shows the user's selected team and switches to another of their teams. */
export function SelectedTeamSwitcher(props: SelectedTeamSwitcherProps) {
  return (
    <Root className="gh-inline">
      <Suspense fallback={null}>
        <Switcher {...props} />
      </Suspense>
    </Root>
  );
}

function Switcher({ onChange, onCreateTeam }: SelectedTeamSwitcherProps) {
  const s = useStrings();
  const app = useGatehouseApp();
  const user = useUser({ includeRestricted: true });
  const teams = useTeams();
  const project = useProject();
  // Nothing to switch between, and no way to make a team: nothing to show.
  if (!user || (teams.length === 0 && !project.config.clientTeamCreationEnabled)) return null;
  const selected = teams.find((team) => team.id === user.selectedTeamId) ?? null;
  return (
    <Menu
      label={s.teamSwitcher}
      align="left"
      triggerClassName="gh-menu-trigger gh-menu-trigger-box"
      trigger={
        <>
          <span className="gh-menu-trigger-label">
            {selected ? (
              <Avatar name={selected.displayName} imageUrl={selected.profileImageUrl} team />
            ) : null}
            <span className={selected ? undefined : "gh-muted"}>{selected?.displayName ?? s.selectTeam}</span>
          </span>
          <ChevronDownIcon />
        </>
      }
    >
      {(close) => (
        <>
          {teams.length > 0 ? <p className="gh-menu-label">{s.sectionTeams}</p> : null}
          {teams.map((team) => (
            <MenuItem
              key={team.id}
              checked={team.id === selected?.id}
              onSelect={() => {
                close();
                void user.setSelectedTeam(team).then(() => onChange?.(team));
              }}
            >
              <Avatar name={team.displayName} imageUrl={team.profileImageUrl} team />
              <span>{team.displayName}</span>
            </MenuItem>
          ))}
          {project.config.clientTeamCreationEnabled ? (
            <>
              {teams.length > 0 ? <div className="gh-menu-separator" /> : null}
              <MenuItem
                onSelect={() => {
                  close();
                  if (onCreateTeam) onCreateTeam();
                  else appNavigate(app, `${app.urls.accountSettings}#teams`);
                }}
              >
                <PlusIcon />
                {s.createTeam}
              </MenuItem>
            </>
          ) : null}
        </>
      )}
    </Menu>
  );
}
