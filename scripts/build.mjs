// Builds what `npm start` runs, skipping what is already current:
//   server     packages/server/src -> packages/server/dist/main.js (ESM, with a file per module imported on first
//              use; npm packages stay external)
//   dashboard  apps/dashboard -> apps/dashboard/dist (served by the server at /)
//   cli        packages/cli/src -> packages/cli/dist/gatehouse.js (the `gatehouse` bin; npm packages stay external)
// `node scripts/build.mjs` builds the stale ones, `--force` all of them, and naming targets limits the run
// (`node scripts/build.mjs server`). A current build costs a few file-time reads, so `npm start` stays quick.
import { chmodSync, existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const force = args.includes("--force");
const named = args.filter((arg) => !arg.startsWith("--"));

/** Newest modification time under a path; tests do not go into a build, so they never make one stale. */
function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === "node_modules" || entry === "dist" || /\.test\.tsx?$/.test(entry)) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

function isStale(output, sources) {
  if (force || !existsSync(output)) return true;
  return Math.max(...sources.map((source) => newestMtime(join(root, source)))) > statSync(output).mtimeMs;
}

// Workspace packages are bundled from their sources (the `gatehouse-source` export condition); every other
// package is imported from node_modules at run time, as installed, except those named in `bundled`.
function keepNpmPackagesExternal(bundled = []) {
  const isBundled = (path) => bundled.some((name) => path === name || path.startsWith(`${name}/`));
  return {
    name: "keep-npm-packages-external",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) =>
        args.path.startsWith("@gatehouse/") || isBundled(args.path)
          ? undefined
          : { path: args.path, external: true },
      );
    },
  };
}

// Node's ESM loader costs about half a millisecond per file it loads, and these plain-ESM packages that nothing but
// the server imports come as ~240 small files (drizzle-orm 128, jose 64, hono 42): in the bundle they start
// ~0.13 s sooner. Packages that read files beside their code (PGlite's wasm), native addons and CommonJS stay in
// node_modules, and so does zod, which the AI SDK (loaded on first use) imports too: one copy in the process.
const SERVER_BUNDLED_PACKAGES = ["drizzle-orm", "hono", "@hono/node-server", "jose"];

const targets = {
  async server() {
    const output = join(root, "packages/server/dist/main.js");
    const sources = [
      "packages/server/src",
      "packages/shared/src",
      "packages/server/package.json",
      // The bundled packages' code comes from node_modules: a changed install rebuilds.
      "package-lock.json",
      "scripts/build.mjs",
    ];
    if (!isStale(output, sources)) return false;
    const { build } = await import("esbuild");
    // Chunks of an earlier build would linger beside the new ones: the folder holds this build alone.
    rmSync(dirname(output), { recursive: true, force: true });
    await build({
      entryPoints: [join(root, "packages/server/src/main.ts")],
      outdir: dirname(output),
      entryNames: "main",
      // A module imported with `import()` becomes a file of its own, loaded with the npm packages it imports when
      // first asked for: the database driver not chosen (db/index.ts) is never loaded. All files stay in one
      // folder, so `import.meta.url` (package-root.ts) is the same in each.
      splitting: true,
      chunkNames: "[name]-[hash]",
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20.19",
      sourcemap: true,
      // `--enable-source-maps` reads the whole map at start and keeps it: without the sources' text (Node reads a
      // stack frame's line from the file itself) that is ~6 MiB instead of ~20 MiB of the server's memory.
      sourcesContent: false,
      jsx: "automatic",
      conditions: ["gatehouse-source"],
      plugins: [keepNpmPackagesExternal(SERVER_BUNDLED_PACKAGES)],
      logLevel: "warning",
    });
    return true;
  },
  async cli() {
    const output = join(root, "packages/cli/dist/gatehouse.js");
    if (
      !isStale(output, [
        "packages/cli/src",
        "packages/shared/src",
        "packages/cli/package.json",
        "scripts/build.mjs",
      ])
    )
      return false;
    const { build } = await import("esbuild");
    await build({
      entryPoints: [join(root, "packages/cli/src/bin.ts")],
      outfile: output,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20.19",
      sourcemap: true,
      conditions: ["gatehouse-source"],
      plugins: [keepNpmPackagesExternal()],
      logLevel: "warning",
    });
    chmodSync(output, 0o755);
    return true;
  },
  async dashboard() {
    const appDir = join(root, "apps/dashboard");
    const output = join(appDir, "dist/index.html");
    const sources = [
      "apps/dashboard/src",
      "apps/dashboard/index.html",
      "apps/dashboard/vite.config.ts",
      "packages/js/src",
      "packages/react/src",
      "packages/shared/src",
    ];
    if (!isStale(output, sources)) return false;
    const { build } = await import("vite");
    await build({ root: appDir, configFile: join(appDir, "vite.config.ts"), logLevel: "warn" });
    return true;
  },
};

for (const name of named) {
  if (!(name in targets)) {
    console.error(`Unknown build target "${name}". Targets: ${Object.keys(targets).join(", ")}.`);
    process.exit(2);
  }
}
for (const name of named.length > 0 ? named : Object.keys(targets)) {
  const started = performance.now();
  if (await targets[name]()) console.log(`Built ${name} in ${Math.round(performance.now() - started)} ms.`);
}
