// Builds the dashboard (apps/dashboard) when its build is missing or older than any source it bundles, so that
// `npm start` serves a current dashboard on the API's port. A fresh build takes about a second.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const appDir = join(root, "apps/dashboard");
const builtIndex = join(appDir, "dist/index.html");
const sources = [
  join(appDir, "src"),
  join(appDir, "index.html"),
  join(appDir, "vite.config.ts"),
  join(root, "packages/js/src"),
  join(root, "packages/react/src"),
  join(root, "packages/shared/src"),
];

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === "node_modules" || entry.endsWith(".test.ts") || entry.endsWith(".test.tsx")) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

const builtAt = existsSync(builtIndex) ? statSync(builtIndex).mtimeMs : 0;
const sourcesAt = Math.max(...sources.map(newestMtime));
if (builtAt > sourcesAt && !process.argv.includes("--force")) {
  console.log("Dashboard build is up to date.");
} else {
  const started = Date.now();
  const { build } = await import("vite");
  await build({ root: appDir, configFile: join(appDir, "vite.config.ts"), logLevel: "warn" });
  console.log(`Dashboard built in ${Date.now() - started} ms.`);
}
