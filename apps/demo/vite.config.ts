import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig, loadEnv } from "vite";

/**
 * The demo app, connected to one of your projects: the variables the dashboard's "React (Vite)" tab and
 * `gatehouse init` write, from the environment or from apps/demo/.env.local:
 *
 *   VITE_STACK_PROJECT_ID              the project (required)
 *   VITE_STACK_PUBLISHABLE_CLIENT_KEY  its publishable client key (when the project requires one)
 *   VITE_STACK_API_URL                 the Gatehouse server (default http://localhost:8102)
 *
 * (VITE_GATEHOUSE_PROJECT_ID, VITE_GATEHOUSE_PUBLISHABLE_KEY and VITE_GATEHOUSE_URL are read too.) The demo never
 * runs against `internal`, the dashboard's own project: its sign-ups would become dashboard accounts. Without a
 * project it shows how to connect one.
 */
function demoSettings(mode: string) {
  const vars = { ...loadEnv(mode, import.meta.dirname, "VITE_"), ...process.env };
  const projectId = vars.VITE_STACK_PROJECT_ID || vars.VITE_GATEHOUSE_PROJECT_ID || null;
  return {
    baseUrl: vars.VITE_STACK_API_URL || vars.VITE_GATEHOUSE_URL || "http://localhost:8102",
    projectId: projectId === "internal" ? null : projectId,
    refusedInternal: projectId === "internal",
    publishableClientKey:
      vars.VITE_STACK_PUBLISHABLE_CLIENT_KEY || vars.VITE_GATEHOUSE_PUBLISHABLE_KEY || null,
  };
}

export default defineConfig(({ mode, command }) => {
  const { refusedInternal, ...settings } = demoSettings(mode);
  if (command === "serve" && !settings.projectId) {
    console.warn(
      refusedInternal
        ? "\n  The demo does not run against `internal`, the dashboard's own project. Use one of your projects.\n"
        : "\n  Connect the demo to a project: put its VITE_STACK_PROJECT_ID and VITE_STACK_PUBLISHABLE_CLIENT_KEY\n" +
            "  (the dashboard shows them when you create the project) in apps/demo/.env.local, or set them.\n",
    );
  }
  return {
    root: import.meta.dirname,
    plugins: [react()],
    // Workspace packages from their TypeScript sources (their `gatehouse-source` export), not their dist/.
    resolve: { conditions: ["gatehouse-source", ...defaultClientConditions] },
    define: {
      __GATEHOUSE_DEMO_DEFAULTS__: JSON.stringify(settings),
    },
    build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 2000 },
    server: { port: Number(process.env.DEMO_PORT ?? 8103) },
  };
});
