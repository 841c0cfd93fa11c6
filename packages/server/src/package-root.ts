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

/** The monorepo root, where apps/dashboard lives beside packages/server. */
export const REPOSITORY_ROOT = join(SERVER_PACKAGE_ROOT, "../..");
