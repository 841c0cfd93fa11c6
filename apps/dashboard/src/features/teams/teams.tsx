import type { ServerTeam } from "@gatehouse/js";
import { Avatar, avatarColor, Button, formatDate } from "@gatehouse/react/ui";
import { type FormEvent, useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link, navigate } from "../../router.tsx";
import { AsyncCard } from "../../ui/async.tsx";
import { Empty, PageHead, rowClick, Table } from "../../ui/components.tsx";
import { describeError } from "../../ui/errors.ts";
import { TextField, TextInput } from "../../ui/fields.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { Modal } from "../../ui/modal.tsx";
import { usePageTitle } from "../../ui/page-title.ts";
import { useToast } from "../../ui/toast.tsx";

export function TeamsPage() {
  const { app, project } = useProjectContext();
  const teams = useAsync(() => app.listTeams(), [app]);
  const [filter, setFilter] = useState("");
  const [creating, setCreating] = useState(false);
  usePageTitle("Teams");
  const matching = (all: ServerTeam[]) =>
    all.filter((team) => team.displayName.toLowerCase().includes(filter.trim().toLowerCase()));
  return (
    <>
      <PageHead
        title="Teams"
        description="Groups of users, with their own members, permissions and invitations."
        actions={
          <Button onClick={() => setCreating(true)}>
            <Icon name="plus" /> Create team
          </Button>
        }
      />
      <AsyncCard
        flush
        state={teams}
        rows={5}
        toolbar={
          <TextInput
            type="search"
            name="filter"
            placeholder="Filter teams"
            aria-label="Filter teams"
            value={filter}
            onChange={setFilter}
            style={{ maxWidth: 320 }}
          />
        }
        isEmpty={(all) => matching(all).length === 0}
        empty={
          <Empty icon={<Icon name="teams" size={22} />} title={filter ? "No matching teams" : "No teams yet"}>
            Teams are created by your users or by you.
          </Empty>
        }
      >
        {(all) => (
          <Table testId="teams-table">
            <thead>
              <tr>
                <th>Team</th>
                <th>ID</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {matching(all).map((team) => (
                <tr
                  key={team.id}
                  className="clickable"
                  onClick={rowClick(projectPath(project.id, `teams/${team.id}`))}
                >
                  <td>
                    <div className="user-cell">
                      <Avatar
                        name={team.displayName}
                        color={avatarColor(team.id)}
                        imageUrl={team.profileImageUrl}
                      />
                      <Link to={projectPath(project.id, `teams/${team.id}`)} className="row-link name">
                        {team.displayName}
                      </Link>
                    </div>
                  </td>
                  <td className="muted mono">{team.id}</td>
                  <td className="muted">{formatDate(team.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </AsyncCard>
      {creating ? <CreateTeamModal onClose={() => setCreating(false)} /> : null}
    </>
  );
}

function CreateTeamModal({ onClose }: { onClose: () => void }) {
  const { app, project } = useProjectContext();
  const toast = useToast();
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setError("Give the team a name.");
    setBusy(true);
    try {
      const team = await app.createTeam({ displayName: name.trim() });
      toast.success("Team created");
      onClose();
      navigate(projectPath(project.id, `teams/${team.id}`));
    } catch (caught) {
      setError(describeError(caught, { display_name: "Team name" }).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title="Create team" onClose={onClose}>
      <form className="stack" onSubmit={submit} style={{ gap: 14 }}>
        <TextField label="Team name" error={error} name="teamName" value={name} onChange={setName} />
        <div className="row end">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={busy}>
            Create team
          </Button>
        </div>
      </form>
    </Modal>
  );
}
