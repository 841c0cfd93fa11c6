/**
 * What the demo shows when it was started without a project: how to connect it to one of yours. It never falls
 * back to `internal`, the dashboard's own project, whose users are dashboard accounts.
 */
export function SetupPage() {
  return (
    <main className="demo-main" data-testid="demo-setup">
      <h1>Connect the demo to a project</h1>
      <p>
        The demo signs people up to one of your projects, never to the dashboard's own. In the dashboard,
        create a project (or open one and create a key set under API keys), choose{" "}
        <strong>React (Vite)</strong> and copy the <code>.env</code> into <code>apps/demo/.env.local</code>:
      </p>
      <pre className="demo-setup-env">
        {[
          "VITE_STACK_PROJECT_ID=<your project id>",
          "VITE_STACK_PUBLISHABLE_CLIENT_KEY=<its publishable client key>",
          "VITE_STACK_API_URL=http://localhost:8102",
        ].join("\n")}
      </pre>
      <p>
        Then restart <code>npm run demo</code>. The same variables can also be set in the environment.
      </p>
    </main>
  );
}
