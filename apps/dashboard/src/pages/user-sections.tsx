import type { ServerUser } from "@gatehouse/js";
import { useState } from "react";
import { projectPath, useProjectContext } from "../project-context.tsx";
import { Link } from "../router.tsx";
import {
  ActionButton,
  Badge,
  Card,
  ConfirmButton,
  ErrorAlert,
  formatDate,
  Loading,
} from "../ui/components.tsx";
import { type AsyncState, useAsync } from "../ui/hooks.ts";

function Section<T>(props: {
  state: AsyncState<T[]>;
  empty: string;
  children: (items: T[]) => React.ReactNode;
}) {
  if (props.state.error) return <ErrorAlert error={props.state.error} retry={props.state.reload} />;
  if (!props.state.data) return <Loading rows={2} />;
  if (props.state.data.length === 0) return <p className="muted">{props.empty}</p>;
  return <>{props.children(props.state.data)}</>;
}

/** The user's contact channels, sign-in connections, sessions, teams and project permissions. */
export function UserActivity({ user }: { user: ServerUser }) {
  const { app, project } = useProjectContext();
  const channels = useAsync(() => user.listContactChannels(), [user]);
  const providers = useAsync(() => user.listOAuthProviders(), [user]);
  const sessions = useAsync(() => user.getActiveSessions(), [user]);
  const teams = useAsync(() => user.listTeams(), [user]);
  const granted = useAsync(() => user.listPermissions({ recursive: false }), [user]);
  const definitions = useAsync(() => app.listProjectPermissionDefinitions(), [app]);
  const [newChannel, setNewChannel] = useState("");
  const [grant, setGrant] = useState("");

  return (
    <>
      <div className="grid2">
        <Card title="Contact channels" description="Email addresses of the user.">
          <Section state={channels} empty="No contact channels.">
            {(items) => (
              <table className="table" data-testid="contact-channels">
                <tbody>
                  {items.map((channel) => (
                    <tr key={channel.id}>
                      <td>{channel.value}</td>
                      <td className="row">
                        {channel.isPrimary ? <Badge tone="accent">Primary</Badge> : null}
                        {channel.isVerified ? (
                          <Badge tone="success">Verified</Badge>
                        ) : (
                          <Badge>Unverified</Badge>
                        )}
                        {channel.usedForAuth ? <Badge>Sign-in</Badge> : null}
                      </td>
                      <td style={{ textAlign: "right" }}>
                        <ConfirmButton
                          size="sm"
                          label="Remove"
                          title="Remove this email?"
                          description={channel.value}
                          confirmLabel="Remove"
                          success="Email removed"
                          onConfirm={async () => {
                            await channel.delete();
                            await channels.reload();
                          }}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Section>
          <div className="row">
            <input
              type="email"
              name="newChannel"
              placeholder="another@example.com"
              value={newChannel}
              onChange={(e) => setNewChannel(e.target.value)}
              style={{ flex: 1, width: "auto" }}
            />
            <ActionButton
              disabled={!newChannel.trim()}
              success="Email added"
              onClick={async () => {
                await user.createContactChannel({
                  type: "email",
                  value: newChannel.trim(),
                  usedForAuth: false,
                });
                setNewChannel("");
                await channels.reload();
              }}
            >
              Add email
            </ActionButton>
          </div>
        </Card>
        <Card title="Connected accounts" description="OAuth providers the user signs in with.">
          <Section state={providers} empty="No connected accounts.">
            {(items) => (
              <ul className="checklist">
                {items.map((provider) => (
                  <li key={provider.id}>
                    <Badge tone="accent">{provider.type}</Badge> {provider.email ?? provider.accountId}
                  </li>
                ))}
              </ul>
            )}
          </Section>
        </Card>
      </div>
      <Card title="Sessions" description="Where the user is signed in. Revoking signs that device out." flush>
        <div className="card-body">
          <Section state={sessions} empty="No active sessions.">
            {(items) => (
              <table className="table" data-testid="sessions">
                <thead>
                  <tr>
                    <th>Created</th>
                    <th>Last used</th>
                    <th>IP</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {items.map((session) => (
                    <tr key={session.id}>
                      <td>
                        {formatDate(session.createdAt)}{" "}
                        {session.isImpersonation ? <Badge tone="warning">Impersonation</Badge> : null}
                      </td>
                      <td className="muted">{formatDate(session.lastUsedAt)}</td>
                      <td className="muted mono">{session.geoInfo?.ip ?? "—"}</td>
                      <td style={{ textAlign: "right" }}>
                        <ConfirmButton
                          size="sm"
                          label="Revoke"
                          title="Revoke this session?"
                          description="The device using it is signed out at its next refresh."
                          confirmLabel="Revoke"
                          success="Session revoked"
                          onConfirm={async () => {
                            await user.revokeSession(session.id);
                            await sessions.reload();
                          }}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Section>
        </div>
      </Card>
      <div className="grid2">
        <Card title="Teams">
          <Section state={teams} empty="Not in any team.">
            {(items) => (
              <ul className="checklist">
                {items.map((team) => (
                  <li key={team.id}>
                    <Link to={projectPath(project.id, `teams/${team.id}`)}>{team.displayName}</Link>
                  </li>
                ))}
              </ul>
            )}
          </Section>
        </Card>
        <Card title="Project permissions" description="Granted directly; contained permissions follow.">
          <Section state={granted} empty="No project permissions.">
            {(items) => (
              <div className="row" data-testid="user-permissions">
                {items.map((permission) => (
                  <span key={permission.id} className="perm-node">
                    {permission.id}
                    <ActionButton
                      size="sm"
                      variant="ghost"
                      aria-label={`Revoke ${permission.id}`}
                      onClick={async () => {
                        await user.revokePermission(permission.id);
                        await granted.reload();
                      }}
                    >
                      ×
                    </ActionButton>
                  </span>
                ))}
              </div>
            )}
          </Section>
          <div className="row">
            <select
              name="grantPermission"
              value={grant}
              onChange={(e) => setGrant(e.target.value)}
              style={{ flex: 1 }}
            >
              <option value="">Choose a permission…</option>
              {(definitions.data ?? []).map((definition) => (
                <option key={definition.id} value={definition.id}>
                  {definition.id}
                </option>
              ))}
            </select>
            <ActionButton
              disabled={!grant}
              success="Permission granted"
              onClick={async () => {
                await user.grantPermission(grant);
                setGrant("");
                await granted.reload();
              }}
            >
              Grant
            </ActionButton>
          </div>
        </Card>
      </div>
    </>
  );
}
