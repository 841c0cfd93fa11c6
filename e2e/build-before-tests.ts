import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Vitest global setup: builds the server bundle and the dashboard once (only what is stale), before any test file
 * starts. Browser tests serve that dashboard build and the product tests run `npm start` on it; building here,
 * in one place, keeps two test workers from rewriting the same build folder under each other.
 */
export default function buildBeforeTests(): void {
  execFileSync(process.execPath, ["scripts/build.mjs"], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    stdio: "inherit",
  });
}
