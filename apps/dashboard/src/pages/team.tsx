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
  JsonEditor,
  Loading,
  PageHead,
} from "../ui/components.tsx";
import { useAsync } from "../ui/hooks.ts";

/** Where invitation links point: the app's own handler on its first trusted domain, else this site. */
function invitationCallbackUrl(domains: readonly { domain: string; handlerPath: string }[]): string {
  const first = domains[0];
  if (!first) return `${window.location.origin}/handler/team-invitation`;
  return new URL(`${first.handlerPath.replace(/\/$/, "")}/team-invitation`, first.domain).toString();
}

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
      <Card title="Metadata" description="JSON stored with the team.">
        <div
          className="grid3"
          key={JSON.stringify([t.clientMetadata, t.clientReadOnlyMetadata, t.serverMetadata])}
        >
          <JsonEditor
            name="teamClientMetadata"
            label="Client metadata"
            value={t.clientMetadata}
            onSave={async (value) => {
              await t.update({ clientMetadata: value });
              await team.reload();
            }}
          />
          <JsonEditor
            name="teamClientReadOnlyMetadata"
            label="Client read-only metadata"
            value={t.clientReadOnlyMetadata}
            onSave={async (value) => {
              await t.update({ clientReadOnlyMetadata: value });
              await team.reload();
            }}
          />
          <JsonEditor
            name="teamServerMetadata"
            label="Server metadata"
            value={t.serverMetadata}
            onSave={async (value) => {
              await t.update({ serverMetadata: value });
              await team.reload();
            }}
          />
        </div>
      </Card>
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

function Members({ team }: { team: ServerTeam }) {
  const { app, project } = useProjectContext();
  const members = useAsync(() => team.listUsers(), [team]);
  const definitions = useAsync(() => app.listTeamPermissionDefinitions(), [app]);
  const [addId, setAddId] = useState("");
  const [selected, setSelected] = useState<string | null>(null);
  const selectedUser = useAsync(async () => (selected ? app.getUser(selected) : null), [app, selected]);
  const permissions = useAsync(
    async () => (selectedUser.data ? selectedUser.data.listPermissions(team, { recursive: false }) : []),
    [selectedUser.data, team],
  );
  const held = new Set((permissions.data ?? []).map((permission) => permission.id));
  return (
    <div className="grid2">
      <Card title="Members" description="Click a member to edit their permissions in this team.">
        {members.error ? (
          <ErrorAlert error={members.error} retry={members.reload} />
        ) : !members.data ? (
          <Loading rows={3} />
        ) : members.data.length === 0 ? (
          <p className="muted">No members yet.</p>
        ) : (
          <table className="table" data-testid="members">
            <tbody>
              {members.data.map((member) => (
                <tr
                  key={member.id}
                  className="clickable"
                  onClick={() => setSelected(member.id)}
                  style={member.id === selected ? { background: "var(--accent-soft)" } : undefined}
                >
                  <td>
                    <div className="user-cell">
                      <Avatar name={member.teamProfile.displayName} seed={member.id} />
                      <div>
                        <div className="name">{member.teamProfile.displayName ?? "Unnamed"}</div>
                        <Link to={projectPath(project.id, `users/${member.id}`)}>
                          <span className="small mono">{member.id}</span>
                        </Link>
                      </div>
                    </div>
                  </td>
                  <td style={{ textAlign: "right" }}>
                    <ConfirmButton
                      size="sm"
                      label="Remove"
                      title="Remove from team?"
                      description="The user loses the team's permissions."
                      confirmLabel="Remove"
                      success="Member removed"
                      onConfirm={async () => {
                        await team.removeUser(member.id);
                        if (selected === member.id) setSelected(null);
                        await members.reload();
                      }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div className="row">
          <input
            type="text"
            name="addMember"
            placeholder="User ID"
            value={addId}
            onChange={(e) => setAddId(e.target.value)}
            style={{ flex: 1, width: "auto" }}
          />
          <ActionButton
            disabled={!addId.trim()}
            success="Member added"
            onClick={async () => {
              await team.addUser(addId.trim());
              setAddId("");
              await members.reload();
            }}
          >
            Add member
          </ActionButton>
        </div>
      </Card>
      <Card
        title="Member permissions"
        description="Team permissions granted directly to the selected member."
      >
        {!selected ? (
          <p className="muted">Select a member.</p>
        ) : !permissions.data || !definitions.data ? (
          <Loading rows={3} />
        ) : (
          <div className="stack" data-testid="member-permissions">
            {definitions.data.map((definition) => (
              <label key={definition.id} className="checkbox">
                <input
                  type="checkbox"
                  name={`perm-${definition.id}`}
                  checked={held.has(definition.id)}
                  onChange={async (e) => {
                    const user = selectedUser.data!;
                    if (e.target.checked) await user.grantPermission(team, definition.id);
                    else await user.revokePermission(team, definition.id);
                    await permissions.reload();
                  }}
                />
                <span className="perm-node">{definition.id}</span>
                <span className="muted small">{definition.description}</span>
              </label>
            ))}
          </div>
        )}
      </Card>
    </div>
  );
}

function Invitations({ team }: { team: ServerTeam }) {
  const { project } = useProjectContext();
  const invitations = useAsync(() => team.listInvitations(), [team]);
  const [email, setEmail] = useState("");
  return (
    <Card
      title="Invitations"
      description="Pending invitations; the link in the email adds the person to the team."
    >
      {invitations.error ? (
        <ErrorAlert error={invitations.error} retry={invitations.reload} />
      ) : !invitations.data ? (
        <Loading rows={2} />
      ) : invitations.data.length === 0 ? (
        <p className="muted">No pending invitations.</p>
      ) : (
        <table className="table" data-testid="invitations">
          <tbody>
            {invitations.data.map((invitation) => (
              <tr key={invitation.id}>
                <td>{invitation.recipientEmail}</td>
                <td className="muted">expires {formatDate(invitation.expiresAt)}</td>
                <td style={{ textAlign: "right" }}>
                  <ConfirmButton
                    size="sm"
                    label="Revoke"
                    title="Revoke this invitation?"
                    description="The link in the email stops working."
                    confirmLabel="Revoke"
                    success="Invitation revoked"
                    onConfirm={async () => {
                      await invitation.revoke();
                      await invitations.reload();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="row">
        <input
          type="email"
          name="inviteEmail"
          placeholder="teammate@example.com"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          style={{ flex: 1, width: "auto" }}
        />
        <ActionButton
          disabled={!email.trim()}
          success="Invitation sent"
          onClick={async () => {
            await team.inviteUser({
              email: email.trim(),
              callbackUrl: invitationCallbackUrl(project.config.domains),
            });
            setEmail("");
            await invitations.reload();
          }}
        >
          Invite
        </ActionButton>
      </div>
    </Card>
  );
}
