import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder of @gatehouse/server (the one holding its package.json). The server runs both from its sources
 * (`src/…`, under tests and `npm run dev`) and from the build's files in `dist/` (under `npm start`), so files it
 * reads at run time (migrations, the dashboard build) are found from here rather than from a module's own path.
 */
export const SERVER_PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

/** The monorepo root, where apps/dashboard lives beside packages/server (meaningless in an installed package). */
export const REPOSITORY_ROOT = join(SERVER_PACKAGE_ROOT, "../..");

/**
 * An installed @gatehouse/server (its `npm pack` tarball) has no sources and no repository around it, so its prepack
 * (scripts/build-server-package.mjs) puts the dashboard build and the README inside dist/. A checkout keeps reading
 * them where they are made, so a stale copy in dist/ is never served.
 */
const INSTALLED = !existsSync(join(SERVER_PACKAGE_ROOT, "src/main.ts"));

/** The dashboard's `vite build`, served at `/`. */
export const DASHBOARD_BUILD = INSTALLED
  ? join(SERVER_PACKAGE_ROOT, "dist/dashboard")
  : join(REPOSITORY_ROOT, "apps/dashboard/dist");

/** The README, which the AI helper quotes (features/ai/docs.ts). */
export const README_FILE = INSTALLED
  ? join(SERVER_PACKAGE_ROOT, "dist/README.md")
  : join(REPOSITORY_ROOT, "README.md");
