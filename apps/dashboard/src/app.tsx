import type { AdminProject, CurrentUser } from "@gatehouse/js";
import { GatehouseHandler, GatehouseProvider } from "@gatehouse/react";
import { decodedCode, PurchasePage, PurchasePaidPage } from "@gatehouse/react/purchase";
import { Spinner } from "@gatehouse/react/ui";
import { type ReactNode, useCallback, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { DevInbox } from "./features/account/dev-inbox.tsx";
import { AuthMethodsPage } from "./features/auth-methods/auth-methods.tsx";
import { DomainsPage } from "./features/domains/domains.tsx";
import { EmailTemplatesSection } from "./features/email-templates/email-templates.tsx";
import { EmailPage } from "./features/emails/email.tsx";
import { SentEmailPage } from "./features/emails/sent-email.tsx";
import { SentEmailsPage } from "./features/emails/sent-emails.tsx";
import { KeysPage } from "./features/keys/keys.tsx";
import { MetricsPage } from "./features/metrics/metrics.tsx";
import { CreateProjectPage } from "./features/onboarding/onboarding.tsx";
import { OverviewPage } from "./features/overview/overview.tsx";
import { PaymentsSection } from "./features/payments/payments.tsx";
import { PermissionsPage } from "./features/permissions/permissions.tsx";
import { SettingsPage } from "./features/settings/settings.tsx";
import { SignUpRulesPage } from "./features/sign-up-rules/sign-up-rules.tsx";
import { TeamPage } from "./features/teams/team.tsx";
import { TeamsPage } from "./features/teams/teams.tsx";
import { UserPage } from "./features/users/user.tsx";
import { UsersPage } from "./features/users/users.tsx";
import { WebhooksPage } from "./features/webhooks/webhooks.tsx";
import { StandaloneWebhookPortal } from "./features/webhooks/webhooks-standalone.tsx";
import { adminAppOf, dashboardApp, type OwnedProject, ownerMethods } from "./gatehouse.ts";
import { Shell } from "./layout.tsx";
import { NotFoundPage } from "./not-found.tsx";
import { ProjectContext } from "./project-context.tsx";
import { Link, matchPath, Redirect, useLocation } from "./router.tsx";
import { Empty, ErrorAlert } from "./ui/components.tsx";
import { errorMessage } from "./ui/hooks.ts";
import { useTheme } from "./ui/theme.tsx";

const userWatch = dashboardApp.watchUser({ includeRestricted: true });

/**
 * Set once someone has signed in to the dashboard in this browser: a first visitor is sent to sign-up, someone
 * who has been here before to sign-in.
 */
const SIGNED_IN_BEFORE = "gatehouse-dashboard-signed-in-before";
/** The last dashboard page open in this tab, where "Back to the dashboard" on the account settings page leads. */
const LAST_PAGE = "gatehouse-dashboard-last-page";

function storageGet(storage: () => Storage, key: string): string | null {
  try {
    return storage().getItem(key);
  } catch {
    return null; // storage refused (private windows, policies): behave as on a first visit
  }
}
function storageSet(storage: () => Storage, key: string, value: string): void {
  try {
    storage().setItem(key, value);
  } catch {
    // nothing to remember then
  }
}

function FullPageSpinner() {
  return (
    <div className="auth-page" data-testid="loading">
      <Spinner large />
    </div>
  );
}

/** Owners sign in to the dashboard with the same handler pages any app of Gatehouse gets from @gatehouse/react. */
export function App() {
  const { pathname, search } = useLocation();
  const theme = useTheme();
  // The webhook portal opened with a token (POST /webhooks/svix-token's link) needs no dashboard account.
  if (pathname === "/webhooks-portal") return <StandaloneWebhookPortal />;
  // A purchase link (create-purchase-url) is for an app's end user: no dashboard account, no chrome. The page is
  // @gatehouse/react's; Stripe Checkout comes back to /purchase/done when the app gave no return URL.
  if (pathname.startsWith("/purchase/")) {
    return (
      <GatehouseProvider app={dashboardApp} theme={theme}>
        {pathname === "/purchase/done" ? (
          <PurchasePaidPage />
        ) : (
          <PurchasePage fullCode={decodedCode(pathname)} returnUrl={search.get("return_url")} />
        )}
      </GatehouseProvider>
    );
  }
  return (
    <GatehouseProvider app={dashboardApp} theme={theme}>
      {pathname === "/handler" || pathname.startsWith("/handler/") ? (
        <>
          {pathname.startsWith("/handler/account-settings") ? (
            <>
              <BackToDashboard />
              <DevInbox />
            </>
          ) : null}
          <GatehouseHandler basePath="/handler" />
        </>
      ) : (
        <SignedInArea pathname={pathname} />
      )}
    </GatehouseProvider>
  );
}

/** The account settings page is the handler's, without the dashboard's chrome: this is the way back. */
function BackToDashboard() {
  const back = storageGet(() => sessionStorage, LAST_PAGE) ?? "/";
  return (
    <nav className="handler-back" aria-label="Dashboard" style={{ padding: "16px 20px", fontSize: 14 }}>
      <Link to={back.startsWith("/") && !back.startsWith("//") ? back : "/"}>← Back to the dashboard</Link>
    </nav>
  );
}

function SignedInArea({ pathname }: { pathname: string }) {
  const snapshot = useSyncExternalStore(userWatch.subscribe, userWatch.getSnapshot);
  if (snapshot.status === "pending") return <FullPageSpinner />;
  if (snapshot.status === "error") {
    return (
      <div className="auth-page">
        <ErrorAlert error={snapshot.error} retry={() => window.location.reload()} />
      </div>
    );
  }
  if (!snapshot.data) {
    const page = storageGet(() => localStorage, SIGNED_IN_BEFORE) ? "sign-in" : "sign-up";
    return <Redirect to={`/handler/${page}?after_auth_return_to=${encodeURIComponent(pathname)}`} />;
  }
  return <SignedIn user={snapshot.data} pathname={pathname} />;
}

function SignedIn({ user, pathname }: { user: CurrentUser; pathname: string }) {
  useEffect(() => storageSet(() => localStorage, SIGNED_IN_BEFORE, "1"), []);
  useEffect(() => storageSet(() => sessionStorage, LAST_PAGE, pathname + window.location.search), [pathname]);
  return <OwnerArea user={user} pathname={pathname} />;
}

function OwnerArea({ user, pathname }: { user: CurrentUser; pathname: string }) {
  const [projects, setProjects] = useState<OwnedProject[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const reloadProjects = useCallback(async () => {
    try {
      setProjects(await ownerMethods(user).listOwnedProjects());
    } catch (caught) {
      setError(caught);
    }
  }, [user]);
  useEffect(() => {
    void reloadProjects();
  }, [reloadProjects]);

  if (error) return <div className="auth-page">{errorMessage(error)}</div>;
  if (!projects) return <FullPageSpinner />;
  if (pathname === "/new-project" || (pathname === "/" && projects.length === 0)) {
    return <CreateProjectPage user={user} firstRun={projects.length === 0} onCreated={reloadProjects} />;
  }
  const match = matchPath("/projects/:projectId/*", `${pathname}/`) ?? projectParams(pathname);
  if (!match) {
    if (pathname === "/" || pathname === "/projects") {
      return <Redirect to={`/projects/${encodeURIComponent(projects[0]!.id)}`} />;
    }
    return <NotFoundPage fullPage />;
  }
  const owned = projects.find((project) => project.id === match.projectId);
  if (!owned) {
    return (
      <div className="auth-page">
        <Empty title="Project not found">
          It does not exist or none of your teams own it. <a href="/">Back to your projects</a>
        </Empty>
      </div>
    );
  }
  return (
    <ProjectArea key={owned.id} user={user} owned={owned} projects={projects} reloadProjects={reloadProjects}>
      <ProjectPage pathname={pathname} />
    </ProjectArea>
  );
}

function projectParams(pathname: string): { projectId: string } | null {
  const parts = pathname.split("/").filter(Boolean);
  return parts[0] === "projects" && parts[1] ? { projectId: decodeURIComponent(parts[1]) } : null;
}

function ProjectArea(props: {
  user: CurrentUser;
  owned: OwnedProject;
  projects: OwnedProject[];
  reloadProjects: () => Promise<void>;
  children: ReactNode;
}) {
  // One admin app per project: a reload of the project list (after a rename) must not make every page refetch.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the project's id names its admin app
  const app = useMemo(() => adminAppOf(props.owned), [props.owned.id]);
  const [project, setProject] = useState<AdminProject>(props.owned);
  const { reloadProjects } = props;
  // A change of the project (its name, its logo) shows in the project switcher's list too.
  const refresh = useCallback(async () => {
    const [fresh] = await Promise.all([app.getProject(), reloadProjects()]);
    setProject(fresh);
  }, [app, reloadProjects]);
  return (
    <ProjectContext.Provider
      value={{
        user: props.user,
        projects: props.projects,
        project,
        app,
        refresh,
        reloadProjects: props.reloadProjects,
      }}
    >
      <Shell>{props.children}</Shell>
    </ProjectContext.Provider>
  );
}

function ProjectPage({ pathname }: { pathname: string }) {
  const rest = pathname
    .split("/")
    .filter(Boolean)
    .slice(2)
    .map((part) => decodeURIComponent(part));
  const [section, id, subId] = rest;
  switch (section) {
    case undefined:
      return <OverviewPage />;
    case "metrics":
      return <MetricsPage />;
    case "users":
      return id ? <UserPage key={id} userId={id} /> : <UsersPage />;
    case "teams":
      return id ? <TeamPage key={id} teamId={id} /> : <TeamsPage />;
    case "permissions":
      return <PermissionsPage />;
    case "auth-methods":
      return <AuthMethodsPage />;
    case "sign-up-rules":
      return <SignUpRulesPage />;
    case "domains":
      return <DomainsPage />;
    case "keys":
      return <KeysPage />;
    case "webhooks":
      return <WebhooksPage />;
    case "payments":
      return <PaymentsSection tab={id} />;
    case "email":
      return <EmailPage />;
    case "sent-emails":
      return id ? <SentEmailPage emailId={id} /> : <SentEmailsPage />;
    case "email-templates":
      return <EmailTemplatesSection kind={id} id={subId} />;
    case "settings":
      return <SettingsPage />;
    default:
      return <NotFoundPage />;
  }
}
