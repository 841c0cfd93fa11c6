import { formatDate, formatDay, LabelValues } from "@gatehouse/react/ui";
import { productionModeChecks } from "@gatehouse/shared";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link } from "../../router.tsx";
import { providerName } from "../../shared/oauth-provider-names.ts";
import { UserLink } from "../../shared/user-link.tsx";
import { AsyncCard } from "../../ui/async.tsx";
import { Badge, Card, CopyField, PageHead } from "../../ui/components.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { usePageTitle } from "../../ui/page-title.ts";
import { GettingStarted } from "./overview-checklist.tsx";

const RECENT_USERS = 5;

/** The first lines of an app on @gatehouse/js (or @stackframe/js pointed here with `baseUrl`). */
function setupSnippet(projectId: string, baseUrl: string): string {
  return [
    'import { GatehouseClientApp } from "@gatehouse/js";',
    "",
    "export const gatehouse = new GatehouseClientApp({",
    `  projectId: "${projectId}",`,
    `  baseUrl: "${baseUrl}",`,
    "  publishableClientKey: process.env.NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY,",
    '  tokenStore: "cookie",',
    "});",
  ].join("\n");
}

export function OverviewPage() {
  const { project, app } = useProjectContext();
  usePageTitle("Overview");
  const recent = useAsync(
    () => app.listUsers({ limit: RECENT_USERS, orderBy: "signedUpAt", desc: true }),
    [app],
  );
  const keys = useAsync(() => app.listInternalApiKeys(), [app]);
  const validKeys = keys.data?.filter((key) => key.isValid()).length;
  const problems = productionModeChecks({
    allowLocalhost: project.config.allowLocalhost,
    trustedDomains: project.config.domains.map((domain) => domain.domain),
  });
  const baseUrl = window.location.origin;
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
      <GettingStarted />
      <div className="grid3">
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
                {providerName(provider.id)}
              </Badge>
            ))}
            <Link to={projectPath(project.id, "auth-methods")}>Change →</Link>
          </div>
        </Card>
        <Card title="Production readiness" description="Checks before going live">
          <p style={{ fontSize: 13 }} data-testid="overview-production">
            {project.isProductionMode
              ? "Production mode is on."
              : problems.length === 0
                ? "All checks pass."
                : `${problems.length} check${problems.length === 1 ? "" : "s"} to fix.`}{" "}
            <Link to={projectPath(project.id, "settings")}>Settings →</Link>
          </p>
        </Card>
      </div>
      <div className="grid2">
        <Card
          title="Connect your app"
          description="Your app needs these values and a publishable client key (from API keys; the .env shown when you create a key set uses the same names)."
        >
          <LabelValues
            rows={[
              { label: "Project ID", value: <CopyField value={project.id} label="project-id" /> },
              { label: "API URL", value: <CopyField value={baseUrl} label="api-url" /> },
            ]}
          />
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
          <pre className="snippet" data-testid="setup-snippet" tabIndex={0}>
            {setupSnippet(project.id, baseUrl)}
          </pre>
        </Card>
        <AsyncCard
          title="Recent sign-ups"
          description="The newest users of your app."
          state={recent}
          rows={3}
          empty={<p className="muted">No users yet. They appear here as soon as someone signs up.</p>}
        >
          {(users) => (
            <div className="stack" data-testid="recent-users">
              {users.map((user) => (
                <UserLink
                  key={user.id}
                  projectId={project.id}
                  user={{
                    id: user.id,
                    name: user.displayName,
                    email: user.primaryEmail,
                    imageUrl: user.profileImageUrl,
                  }}
                  detail={formatDate(user.signedUpAt)}
                />
              ))}
              <Link to={projectPath(project.id, "users")}>All users →</Link>
            </div>
          )}
        </AsyncCard>
      </div>
    </>
  );
}
