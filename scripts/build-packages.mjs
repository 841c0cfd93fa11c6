// Builds the publishable packages into their dist/ folders: ESM JavaScript, .d.ts declarations and source maps,
// compiled by tsc with each package's tsconfig.build.json. In order, because each one's declarations read the
// declarations of the one before it (@gatehouse/js imports @gatehouse/shared, @gatehouse/react imports both).
//
//   node scripts/build-packages.mjs        (npm run build:packages)
//   node scripts/build-packages.mjs react  (a package's prepack: that package, after the ones before it if stale)
//
// Inside the workspace nothing needs this: tests, the dashboard and the server read the packages' sources through
// the `gatehouse-source` export condition. This is for `npm pack` / `npm publish` and for apps outside the repo.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
export const PUBLISHED_PACKAGES = ["shared", "js", "react"];

/** Declarations keep the sources' `.ts` import specifiers; a consumer's compiler looks for `.js` ones. */
function rewriteDeclarationImports(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      rewriteDeclarationImports(path);
    } else if (entry.endsWith(".d.ts")) {
      const text = readFileSync(path, "utf8");
      const rewritten = text.replace(/(["'])(\.\.?\/[^"']+)\.tsx?\1/g, "$1$2.js$1");
      if (rewritten !== text) writeFileSync(path, rewritten);
    }
  }
}

function newestMtime(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(info.mtimeMs, ...readdirSync(path).map((entry) => newestMtime(join(path, entry))));
}

/** A build older than any of its inputs (or missing) would hand the next package stale declarations. */
function isStale(dir) {
  const output = join(dir, "dist/index.d.ts");
  if (!existsSync(output)) return true;
  const inputs = ["src", "package.json", "tsconfig.build.json"].map((input) => newestMtime(join(dir, input)));
  return Math.max(...inputs) > statSync(output).mtimeMs;
}

function buildPackage(name) {
  const dir = join(root, "packages", name);
  const started = performance.now();
  rmSync(join(dir, "dist"), { recursive: true, force: true });
  execFileSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.build.json")], {
    cwd: dir,
    stdio: "inherit",
  });
  rewriteDeclarationImports(join(dir, "dist"));
  console.log(`Built @gatehouse/${name} in ${Math.round(performance.now() - started)} ms.`);
}

/**
 * Without a name, every package. With one (a package's prepack), that package always, and the packages before it
 * only when stale: packing them one after another builds each once.
 */
export function buildPackages(only) {
  if (only !== undefined) {
    const last = PUBLISHED_PACKAGES.indexOf(only);
    if (last === -1)
      throw new Error(`Unknown package "${only}". Packages: ${PUBLISHED_PACKAGES.join(", ")}.`);
    // A package rebuilt before another makes the other's declarations stale too.
    let rebuilt = false;
    for (const name of PUBLISHED_PACKAGES.slice(0, last)) {
      if (rebuilt || isStale(join(root, "packages", name))) {
        buildPackage(name);
        rebuilt = true;
      }
    }
    buildPackage(only);
    return;
  }
  for (const name of PUBLISHED_PACKAGES) buildPackage(name);
  // @gatehouse/cli is one bundled bin (workspace packages inside, npm packages as dependencies), made by build.mjs.
  execFileSync(process.execPath, [join(root, "scripts/build.mjs"), "--force", "cli"], { stdio: "inherit" });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildPackages(process.argv[2]);
