import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig } from "vite";

/**
 * The demo app. It talks to the Gatehouse server at VITE_GATEHOUSE_URL (default http://localhost:8102) as the
 * project VITE_GATEHOUSE_PROJECT_ID with VITE_GATEHOUSE_PUBLISHABLE_KEY. Without them it uses the `internal`
 * project and the keys `npm start` keeps in .gatehouse/internal-keys.json, so that `npm start` in one terminal
 * and `npm run demo` in another are enough to try it.
 */
function internalPublishableKey(): string | undefined {
  const seeded = process.env.GATEHOUSE_SEED_INTERNAL_PUBLISHABLE_CLIENT_KEY;
  if (seeded) return seeded;
  const dataDir = process.env.GATEHOUSE_DATA_DIR ?? path.join(import.meta.dirname, "../../.gatehouse");
  const file = path.join(dataDir, "internal-keys.json");
  if (!existsSync(file)) return undefined;
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { publishableClientKey?: string }).publishableClientKey;
  } catch {
    return undefined;
  }
}

export default defineConfig(() => {
  const projectId = process.env.VITE_GATEHOUSE_PROJECT_ID ?? "internal";
  const publishableKey =
    process.env.VITE_GATEHOUSE_PUBLISHABLE_KEY ??
    (projectId === "internal" ? internalPublishableKey() : undefined);
  return {
    root: import.meta.dirname,
    plugins: [react()],
    // Workspace packages from their TypeScript sources (their `gatehouse-source` export), not their dist/.
    resolve: { conditions: ["gatehouse-source", ...defaultClientConditions] },
    define: {
      __GATEHOUSE_DEMO_DEFAULTS__: JSON.stringify({
        baseUrl: process.env.VITE_GATEHOUSE_URL ?? "http://localhost:8102",
        projectId,
        publishableClientKey: publishableKey ?? null,
      }),
    },
    build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 2000 },
    server: { port: Number(process.env.DEMO_PORT ?? 8103) },
  };
});
