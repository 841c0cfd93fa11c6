import type { PermissionDefinition, ServerTeam } from "@gatehouse/js";
import { Avatar, avatarColor, formatDate } from "@gatehouse/react/ui";
import { useMemo, useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link } from "../../router.tsx";
import { AsyncBody, AsyncCard } from "../../ui/async.tsx";
import { ActionButton, Card, Table } from "../../ui/components.tsx";
import { looksLikeEmail } from "../../ui/errors.ts";
import { TextInput } from "../../ui/fields.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { ConfirmCell } from "../../ui/modal.tsx";
import { useToast } from "../../ui/toast.tsx";
import { UserPicker } from "../../ui/user-picker.tsx";

/** Where invitation links point: the app's own handler on its first trusted domain, else this site. */
function invitationCallbackUrl(domains: readonly { domain: string; handlerPath: string }[]): string {
  const first = domains[0];
  if (!first) return `${window.location.origin}/handler/team-invitation`;
  return new URL(`${first.handlerPath.replace(/\/$/, "")}/team-invitation`, first.domain).toString();
}

/** The team's members (add, remove) beside the permissions of the one selected. */
export function Members({ team }: { team: ServerTeam }) {
  const { project, app } = useProjectContext();
  const toast = useToast();
  const members = useAsync(() => team.listUsers(), [team]);
  // Members are named by their team name and email, never by id: the team's users, once, for their emails.
  const emails = useAsync(async () => {
    const users = await app.listUsers({ teamId: team.id, limit: 200 });
    return new Map(users.map((user) => [user.id, user.primaryEmail]));
  }, [app, team, members.data]);
  const [selected, setSelected] = useState<string | null>(null);
  const memberIds = useMemo(() => new Set((members.data ?? []).map((member) => member.id)), [members.data]);
  return (
    <div className="grid2">
      <AsyncCard
        title="Members"
        description="Click a member to edit their permissions in this team."
        state={members}
        rows={3}
        empty={
          <p className="muted">No members yet. Add users of the project below, or invite people by email.</p>
        }
        after={
          <UserPicker
            name="addMember"
            placeholder="Add a member: find a user by name, email or id"
            exclude={memberIds}
            onPick={async (user) => {
              try {
                await team.addUser(user.id);
                toast.success(`${user.displayName ?? user.primaryEmail ?? "User"} added`);
                setSelected(user.id);
                await members.reload();
              } catch (error) {
                toast.error(error);
              }
            }}
          />
        }
      >
        {(all) => (
          <Table testId="members">
            <tbody>
              {all.map((member) => {
                const email = emails.data?.get(member.id) ?? null;
                // A member without a display name goes by their email (once known), never "Unnamed".
                const name = member.teamProfile.displayName ?? email ?? "No name or email";
                return (
                  <tr
                    key={member.id}
                    className="clickable"
                    onClick={(event) => {
                      if (!(event.target as Element).closest("a, button")) setSelected(member.id);
                    }}
                    style={member.id === selected ? { background: "var(--accent-soft)" } : undefined}
                  >
                    <td>
                      <div className="user-cell">
                        <Avatar
                          name={member.teamProfile.displayName ?? email}
                          color={avatarColor(member.id)}
                        />
                        <div>
                          <button
                            type="button"
                            className="row-link name"
                            aria-pressed={member.id === selected}
                            title="Edit this member's permissions"
                            onClick={() => setSelected(member.id)}
                          >
                            {name}
                          </button>
                          <Link to={projectPath(project.id, `users/${member.id}`)}>
                            <span className="small">
                              {member.teamProfile.displayName && email ? email : "Open user"}
                            </span>
                          </Link>
                        </div>
                      </div>
                    </td>
                    <ConfirmCell
                      verb="Remove"
                      title="Remove from team?"
                      description="The user loses the team's permissions."
                      success="Member removed"
                      run={async () => {
                        await team.removeUser(member.id);
                        if (selected === member.id) setSelected(null);
                      }}
                      reload={members.reload}
                    />
                  </tr>
                );
              })}
            </tbody>
          </Table>
        )}
      </AsyncCard>
      <MemberPermissions team={team} userId={selected} />
    </div>
  );
}

function MemberPermissions({ team, userId }: { team: ServerTeam; userId: string | null }) {
  const { app } = useProjectContext();
  const toast = useToast();
  const definitions = useAsync(() => app.listTeamPermissionDefinitions(), [app]);
  const user = useAsync(async () => (userId ? app.getUser(userId) : null), [app, userId]);
  const held = useAsync(
    async () =>
      new Set(
        (user.data ? await user.data.listPermissions(team, { recursive: false }) : []).map((p) => p.id),
      ),
    [user.data, team],
  );
  const [busy, setBusy] = useState<string | null>(null);

  const toggle = async (definition: PermissionDefinition, grant: boolean) => {
    if (!user.data) return;
    setBusy(definition.id);
    try {
      if (grant) await user.data.grantPermission(team, definition.id);
      else await user.data.revokePermission(team, definition.id);
      toast.success(`${grant ? "Granted" : "Revoked"} ${definition.id}`);
      await held.reload();
    } catch (error) {
      toast.error(error);
    } finally {
      setBusy(null);
    }
  };

  return (
    <Card title="Member permissions" description="Team permissions granted directly to the selected member.">
      {!userId ? (
        <p className="muted">Select a member.</p>
      ) : (
        <AsyncBody
          rows={3}
          state={{
            data: held.data && definitions.data ? { held: held.data, all: definitions.data } : undefined,
            error: definitions.error ?? held.error,
            loading: held.loading || definitions.loading,
            reload: held.reload,
          }}
        >
          {({ held: granted, all }) => (
            <div className="stack" data-testid="member-permissions">
              {all.map((definition) => (
                <label key={definition.id} className="checkbox">
                  <input
                    type="checkbox"
                    name={`perm-${definition.id}`}
                    checked={granted.has(definition.id)}
                    disabled={busy !== null}
                    onChange={(event) => void toggle(definition, event.target.checked)}
                  />
                  <span className="perm-node">{definition.id}</span>
                  <span className="muted small">{definition.description}</span>
                </label>
              ))}
            </div>
          )}
        </AsyncBody>
      )}
    </Card>
  );
}

/** Pending invitations: send by email, revoke. */
export function Invitations({ team }: { team: ServerTeam }) {
  const { project } = useProjectContext();
  const invitations = useAsync(() => team.listInvitations(), [team]);
  const [email, setEmail] = useState("");
  const emailLooksValid = looksLikeEmail(email);
  return (
    <AsyncCard
      title="Invitations"
      description="Pending invitations; the link in the email adds the person to the team."
      state={invitations}
      rows={2}
      empty={<p className="muted">No pending invitations.</p>}
      after={
        <div className="row">
          <TextInput
            type="email"
            name="inviteEmail"
            aria-label="Email address to invite"
            placeholder="teammate@example.com"
            value={email}
            onChange={setEmail}
            style={{ flex: 1, width: "auto" }}
          />
          <ActionButton
            variant="secondary"
            disabled={!emailLooksValid}
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
      }
    >
      {(all) => (
        <Table testId="invitations">
          <tbody>
            {all.map((invitation) => (
              <tr key={invitation.id}>
                <td>{invitation.recipientEmail}</td>
                <td className="muted">expires {formatDate(invitation.expiresAt)}</td>
                <ConfirmCell
                  verb="Revoke"
                  title="Revoke this invitation?"
                  description="The link in the email stops working."
                  success="Invitation revoked"
                  run={() => invitation.revoke()}
                  reload={invitations.reload}
                />
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </AsyncCard>
  );
}
