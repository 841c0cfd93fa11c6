import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig } from "vite";

// The dashboard is served by the Gatehouse server itself (same origin as the API), so `vite dev` proxies the API.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // Workspace packages from their TypeScript sources (their `gatehouse-source` export), not their dist/.
  resolve: { conditions: ["gatehouse-source", ...defaultClientConditions] },
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: {
    proxy: { "/api": process.env.GATEHOUSE_URL ?? "http://localhost:8102" },
  },
});
