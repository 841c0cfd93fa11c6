import { projectPath, useProjectContext } from "../project-context.tsx";
import { Link } from "../router.tsx";
import { Badge, Card, CopyField, formatDay, PageHead } from "../ui/components.tsx";
import { useAsync } from "../ui/hooks.ts";

export function OverviewPage() {
  const { project, app } = useProjectContext();
  const users = useAsync(() => app.listUsers({ limit: 1 }), [app]);
  const keys = useAsync(() => app.listInternalApiKeys(), [app]);
  const validKeys = keys.data?.filter((key) => key.isValid()).length;
  return (
    <>
      <PageHead
        title={project.displayName}
        description={project.description ?? `Created ${formatDay(project.createdAt)}`}
        actions={
          project.isProductionMode ? (
            <Badge tone="success">Production</Badge>
          ) : (
            <Badge tone="warning">Development</Badge>
          )
        }
      />
      <div className="grid3">
        <Card title="Users" description="Everyone who signed up">
          <p style={{ fontSize: 13 }}>
            {users.data ? (users.data.length > 0 ? "Your app has users." : "No users yet.") : "…"}{" "}
            <Link to={projectPath(project.id, "users")}>Open users →</Link>
          </p>
        </Card>
        <Card title="API keys" description="Key sets your apps use">
          <p style={{ fontSize: 13 }}>
            {validKeys === undefined ? "…" : `${validKeys} active key set${validKeys === 1 ? "" : "s"}.`}{" "}
            <Link to={projectPath(project.id, "keys")}>Manage keys →</Link>
          </p>
        </Card>
        <Card title="Sign-in methods" description="How users get in">
          <div className="row">
            {project.config.credentialEnabled ? <Badge tone="accent">Password</Badge> : null}
            {project.config.magicLinkEnabled ? <Badge tone="accent">Magic link</Badge> : null}
            {project.config.passkeyEnabled ? <Badge tone="accent">Passkey</Badge> : null}
            {project.config.oauthProviders.map((provider) => (
              <Badge key={provider.id} tone="accent">
                {provider.id}
              </Badge>
            ))}
          </div>
        </Card>
      </div>
      <Card title="Connect your app" description="The values your app needs besides its keys.">
        <div className="kv">
          <dt>Project ID</dt>
          <dd>
            <CopyField value={project.id} label="project-id" />
          </dd>
          <dt>API URL</dt>
          <dd>
            <CopyField value={window.location.origin} label="api-url" />
          </dd>
        </div>
      </Card>
    </>
  );
}
