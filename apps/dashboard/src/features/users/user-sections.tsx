import type { ServerUser } from "@gatehouse/js";
import { formatDate } from "@gatehouse/react/ui";
import { useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link } from "../../router.tsx";
import { providerName } from "../../shared/oauth-provider-names.ts";
import { AsyncBody } from "../../ui/async.tsx";
import { ActionButton, Badge, Card, Table } from "../../ui/components.tsx";
import { looksLikeEmail } from "../../ui/errors.ts";
import { Select, TextInput } from "../../ui/fields.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { ConfirmCell } from "../../ui/modal.tsx";
import { describeDevice } from "./user-agent.ts";

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
          <AsyncBody state={channels} rows={2} empty={<p className="muted">No contact channels.</p>}>
            {(items) => (
              <Table testId="contact-channels">
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
                      <ConfirmCell
                        verb="Remove"
                        title="Remove this email?"
                        description={channel.value}
                        success="Email removed"
                        run={() => channel.delete()}
                        reload={channels.reload}
                      />
                    </tr>
                  ))}
                </tbody>
              </Table>
            )}
          </AsyncBody>
          <div className="row">
            <TextInput
              type="email"
              name="newChannel"
              aria-label="Add an email address"
              placeholder="another@example.com"
              value={newChannel}
              onChange={setNewChannel}
              style={{ flex: 1, width: "auto" }}
            />
            <ActionButton
              variant="secondary"
              disabled={!newChannel.trim()}
              success="Email added"
              onClick={async () => {
                // Checked here, so an obvious slip is said in words before anything is sent.
                if (!looksLikeEmail(newChannel))
                  throw new Error("Enter a valid email address, like name@example.com.");
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
          <AsyncBody state={providers} rows={2} empty={<p className="muted">No connected accounts.</p>}>
            {(items) => (
              <ul className="checklist">
                {items.map((provider) => (
                  <li key={provider.id}>
                    <Badge tone="accent">{providerName(provider.type)}</Badge>{" "}
                    {provider.email ?? provider.accountId}
                  </li>
                ))}
              </ul>
            )}
          </AsyncBody>
        </Card>
      </div>
      <Card title="Sessions" description="Where the user is signed in. Revoking signs that device out." flush>
        <div className="card-body">
          <AsyncBody state={sessions} rows={2} empty={<p className="muted">No active sessions.</p>}>
            {(items) => (
              <Table testId="sessions">
                <thead>
                  <tr>
                    <th>Device</th>
                    <th>Created</th>
                    <th>Last used</th>
                    <th>IP</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {items.map((session) => (
                    <tr key={session.id}>
                      <td title={session.userAgent}>
                        {describeDevice(session.userAgent)}{" "}
                        {session.isImpersonation ? <Badge tone="warning">Impersonation</Badge> : null}
                      </td>
                      <td className="muted">{formatDate(session.createdAt)}</td>
                      <td className="muted">{formatDate(session.lastUsedAt)}</td>
                      <td className="muted mono">{session.geoInfo?.ip ?? "—"}</td>
                      <ConfirmCell
                        verb="Revoke"
                        title="Revoke this session?"
                        description="The device using it is signed out at its next refresh."
                        success="Session revoked"
                        run={() => user.revokeSession(session.id)}
                        reload={sessions.reload}
                      />
                    </tr>
                  ))}
                </tbody>
              </Table>
            )}
          </AsyncBody>
        </div>
      </Card>
      <div className="grid2">
        <Card title="Teams">
          <AsyncBody state={teams} rows={2} empty={<p className="muted">Not in any team.</p>}>
            {(items) => (
              <ul className="checklist">
                {items.map((team) => (
                  <li key={team.id}>
                    <Link to={projectPath(project.id, `teams/${team.id}`)}>{team.displayName}</Link>
                  </li>
                ))}
              </ul>
            )}
          </AsyncBody>
        </Card>
        <Card title="Project permissions" description="Granted directly; contained permissions follow.">
          <AsyncBody state={granted} rows={2} empty={<p className="muted">No project permissions.</p>}>
            {(items) => (
              <div className="row" data-testid="user-permissions">
                {items.map((permission) => (
                  <span key={permission.id} className="perm-node">
                    {permission.id}
                    <ActionButton
                      small
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
          </AsyncBody>
          <div className="row">
            <Select
              name="grantPermission"
              aria-label="Permission to grant"
              value={grant}
              onChange={setGrant}
              style={{ flex: 1 }}
              placeholder="Choose a permission…"
              options={(definitions.data ?? []).map((definition) => [definition.id, definition.id] as const)}
            />
            <ActionButton
              variant="secondary"
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
