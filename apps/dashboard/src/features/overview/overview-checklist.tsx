import type { ReactNode } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link } from "../../router.tsx";
import { Card } from "../../ui/components.tsx";
import { useAsync } from "../../ui/hooks.ts";
import "./overview-checklist.css";

type Step = { id: string; label: string; done: boolean | undefined; how: ReactNode };

/**
 * The next steps after the first keys, each ticked from the project's own state (never from a click): a trusted
 * domain, an email server of the owner's own, a second member (or an invitation) in the team that owns the
 * project, and a first user, which the demo (`npm run demo`, README) makes. Gone once every step is done.
 */
export function GettingStarted() {
  const { project, app, user } = useProjectContext();
  const teammates = useAsync(async () => {
    const team = (await user.listTeams()).find((item) => item.id === project.ownerTeamId);
    if (!team) return false;
    const [members, invitations] = await Promise.all([team.listUsers(), team.listInvitations()]);
    return members.length > 1 || invitations.length > 0;
  }, [user, project.ownerTeamId]);
  const hasUsers = useAsync(
    async () =>
      (await app.listUsers({ limit: 1, includeAnonymous: true, includeRestricted: true })).length > 0,
    [app],
  );
  const emailType = project.config.emailConfig?.type;
  const steps: Step[] = [
    {
      id: "domain",
      label: "Add your app's domain",
      done: project.config.domains.length > 0,
      how: <Link to={projectPath(project.id, "domains")}>Domains →</Link>,
    },
    {
      id: "email",
      label: "Set up email",
      done: emailType !== undefined && emailType !== "shared",
      how: (
        <>
          Send from your own address instead of the shared server.{" "}
          <Link to={projectPath(project.id, "email")}>Email →</Link>
        </>
      ),
    },
    {
      id: "teammate",
      label: "Invite a teammate",
      done: teammates.data,
      how: project.ownerTeamId ? (
        <a href={`/handler/account-settings?team=${encodeURIComponent(project.ownerTeamId)}`}>
          Invite to the team that owns this project →
        </a>
      ) : null,
    },
    {
      id: "demo",
      label: "Open the demo",
      done: hasUsers.data,
      how: (
        <>
          Sign up in the demo app to see a user arrive:{" "}
          <code>VITE_STACK_PROJECT_ID={project.id} VITE_STACK_PUBLISHABLE_CLIENT_KEY=… npm run demo</code>,
          then open <a href="http://localhost:8103">localhost:8103</a>.
        </>
      ),
    },
  ];
  const done = steps.filter((step) => step.done).length;
  const loading = teammates.loading || hasUsers.loading;
  if (!loading && done === steps.length) return null;
  return (
    <Card
      title="Get started"
      description={loading ? "Checking your project…" : `${done} of ${steps.length} done`}
      testId="getting-started"
    >
      <ul className="plain-list checklist-steps">
        {steps.map((step) => (
          <li key={step.id} className={step.done ? "done" : undefined} data-step={step.id}>
            <span className="checklist-mark" aria-hidden="true">
              {step.done ? "✓" : ""}
            </span>
            <span>
              <span className="checklist-label">
                {step.label}
                <span className="sr-only">{step.done ? " (done)" : " (to do)"}</span>
              </span>
              {step.done ? null : <div className="muted small">{step.how}</div>}
            </span>
          </li>
        ))}
      </ul>
    </Card>
  );
}
