import { projectPath, useProjectContext } from "./project-context.tsx";
import { Link, useLocation } from "./router.tsx";
import { Card, Empty, PageHead } from "./ui/components.tsx";
import { useDocumentTitle, usePageTitle } from "./ui/page-title.ts";

/**
 * An address the dashboard has no page for: said plainly, with the way back, instead of a silent redirect that
 * leaves a mistyped or outdated link looking like it worked. `fullPage` outside any project (no sidebar).
 */
export function NotFoundPage({ fullPage = false }: { fullPage?: boolean }) {
  return fullPage ? <FullPageNotFound /> : <ProjectNotFound />;
}

function Message(props: { title: string; home: string; homeLabel: string }) {
  const { home, homeLabel } = props;
  const { pathname } = useLocation();
  return (
    <Empty title={props.title}>
      <span data-testid="not-found">
        There is no page at <code>{pathname}</code>. <Link to={home}>{homeLabel}</Link>
      </span>
    </Empty>
  );
}

function ProjectNotFound() {
  const { project } = useProjectContext();
  usePageTitle("Page not found");
  return (
    <>
      <PageHead title="Page not found" />
      <Card>
        <Message
          title="Nothing at this address"
          home={projectPath(project.id)}
          homeLabel="Go to the project's overview"
        />
      </Card>
    </>
  );
}

function FullPageNotFound() {
  useDocumentTitle("Page not found");
  return (
    <main className="auth-page">
      <Message title="Page not found" home="/" homeLabel="Back to your projects" />
    </main>
  );
}
