import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig } from "vite";

// The dashboard is served by the Gatehouse server itself (same origin as the API), so `vite dev` proxies the API.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // Workspace packages from their TypeScript sources (their `gatehouse-source` export), not their dist/.
  resolve: { conditions: ["gatehouse-source", ...defaultClientConditions] },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    rolldownOptions: {
      onLog(level, log, handler) {
        // @gatehouse/js loads the admin app with import() so that apps without it never download it; the dashboard
        // imports the admin app itself, so here that import() has nothing to split off. Expected, not a problem:
        // only this one notice is dropped, every other warning is printed.
        if (
          log.code === "INEFFECTIVE_DYNAMIC_IMPORT" &&
          log.message.includes("packages/js/src/apps/admin-app.ts")
        ) {
          return;
        }
        handler(level, log);
      },
    },
  },
  server: {
    proxy: { "/api": process.env.GATEHOUSE_URL ?? "http://localhost:8102" },
  },
});
