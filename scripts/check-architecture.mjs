#!/usr/bin/env node
/**
 * Four rules of the house that no linter knows, checked over the source tree (run by `npm run lint`):
 *
 * 1. No import cycles. A cycle makes module initialisation order matter (an import can be `undefined` while the
 *    cycle loads) and means two modules are really one; a type-only import counts too, because it still ties the two
 *    files together for a reader. A lazy `import()` does not: it runs after every module has loaded, and it is how
 *    a module reaches one that builds on it (the SDK's client app loads the admin app, which extends it, on first
 *    use).
 * 2. One owner per table. Each Drizzle table is written (insert, update, delete) only from the folder that declares
 *    it in its `schema.ts`, so its rules ("one primary email per user", "one override per level") have one home.
 *    Reads may come from anywhere. Tests are exempt: they set up and age rows directly.
 * 3. Features in one direction. The server's feature folders stand in layers (features/layers.json: tenancy,
 *    entities, services, flows, surfaces). A folder imports values only from its own layer and those below; upward
 *    it may import types, and table definitions (a `schema.ts`), since reads are for tables. So a newcomer reads the
 *    core without the features above it. Every folder must be in exactly one layer. Where lower work must reach a
 *    higher feature (a new user's OAuth accounts, a password change ending sessions), the higher one registers a
 *    hook (features/hooks.ts).
 *
 * 4. A map that cannot drift. DESIGN.md names every folder and file under each of its headings, and every path it
 *    names exists (check-design-map.mjs).
 *
 * It reads files as text (import lines and `.insert(table)` calls), which is enough for this codebase's style and
 * keeps the check dependency-free and fast (~100 ms).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkDesignMap } from "./check-design-map.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE_ROOTS = [
  "packages/shared/src",
  "packages/server/src",
  "packages/js/src",
  "packages/react/src",
  "packages/cli/src",
  "apps/dashboard/src",
  "apps/demo/src",
];
const SERVER_SRC = join(ROOT, "packages/server/src");

function listSources(dir) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...listSources(path));
    else if (/\.(ts|tsx|mts)$/.test(name) && !name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

const isTestFile = (file) =>
  /\.test\.tsx?$/.test(file) || /\/testing\//.test(file) || /test-support\.tsx?$/.test(file);

// `import … from "./x.ts"`, `export … from "./x.ts"`, `import("./x.ts")`; only relative specifiers matter here:
// workspace packages are separate build units whose own cycles are checked from their own roots.
const IMPORT_PATTERN =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function resolveImport(fromFile, specifier) {
  const base = resolve(dirname(fromFile), specifier);
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    join(base, "index.ts"),
    join(base, "index.tsx"),
  ]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

function findCycles(files) {
  const graph = new Map();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const targets = new Set();
    for (const match of text.matchAll(IMPORT_PATTERN)) {
      // match[2] is a lazy import(): not an edge of a cycle (see rule 1).
      if (match[1] === undefined) continue;
      const target = resolveImport(file, match[1]);
      if (target) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  // Tarjan's strongly connected components: any component with more than one file (or a self-import) is a cycle.
  let index = 0;
  const indices = new Map();
  const lowLinks = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (node) => {
    indices.set(node, index);
    lowLinks.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        visit(next);
        lowLinks.set(node, Math.min(lowLinks.get(node), lowLinks.get(next)));
      } else if (onStack.has(next)) {
        lowLinks.set(node, Math.min(lowLinks.get(node), indices.get(next)));
      }
    }
    if (lowLinks.get(node) === indices.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return components;
}

/** `export const users = pgTable(` in a feature's schema.ts: the table's owner is that file's folder. */
function tableOwners(serverFiles) {
  const owners = new Map();
  for (const file of serverFiles.filter((f) => f.endsWith("/schema.ts"))) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/export const (\w+) = pgTable\(/g)) owners.set(match[1], dirname(file));
  }
  return owners;
}

function foreignTableWrites(serverFiles) {
  const owners = tableOwners(serverFiles);
  const problems = [];
  for (const file of serverFiles) {
    if (isTestFile(file)) continue;
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((line, lineIndex) => {
      for (const match of line.matchAll(/\.(insert|update|delete)\(\s*(\w+)\s*\)/g)) {
        const owner = owners.get(match[2]);
        if (owner && dirname(file) !== owner) {
          problems.push(
            `${relative(ROOT, file)}:${lineIndex + 1} writes ${match[2]} (${match[1]}), owned by ${relative(ROOT, owner)}`,
          );
        }
      }
    });
  }
  return problems;
}

const FEATURES = join(SERVER_SRC, "features");

function featureLayers() {
  const { layers } = JSON.parse(readFileSync(join(FEATURES, "layers.json"), "utf8"));
  const layerOf = new Map();
  const problems = [];
  layers.forEach((layer, index) => {
    for (const folder of layer.folders) {
      if (layerOf.has(folder)) problems.push(`features/layers.json names ${folder} twice`);
      layerOf.set(folder, index);
      if (!existsSync(join(FEATURES, folder)))
        problems.push(`features/layers.json names ${folder}, which does not exist`);
    }
  });
  for (const name of readdirSync(FEATURES)) {
    if (statSync(join(FEATURES, name)).isDirectory() && !layerOf.has(name)) {
      problems.push(`features/${name} is in no layer of features/layers.json`);
    }
  }
  return { layerOf, problems };
}

// Value imports only: `import type` and `export type` lines are types, and so is an import whose every name is `type X`.
const VALUE_IMPORT_PATTERN =
  /(?:^|\n)\s*(import|export)(\s+type)?\s([^;]*?)from\s*["'](\.{1,2}\/[^"']+)["']/g;

function upwardImports(serverFiles, layerOf) {
  const found = [];
  const folderOf = (file) => {
    const path = relative(FEATURES, file);
    return path.startsWith("..") || !path.includes("/") ? null : path.split("/")[0];
  };
  for (const file of serverFiles) {
    if (isTestFile(file)) continue;
    const from = folderOf(file);
    if (from === null) continue;
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(VALUE_IMPORT_PATTERN)) {
      if (match[2]) continue;
      const names = match[3]
        .replace(/[{}]/g, "")
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean);
      if (names.length > 0 && names.every((name) => name.startsWith("type "))) continue;
      const target = resolveImport(file, match[4]);
      if (!target || target.endsWith("/schema.ts")) continue;
      const to = folderOf(target);
      if (to === null || to === from) continue;
      if ((layerOf.get(to) ?? 0) > (layerOf.get(from) ?? 0)) {
        found.push(`${relative(ROOT, file)} -> features/${to}`);
      }
    }
  }
  return [...new Set(found)].sort();
}

const failures = [];
for (const root of SOURCE_ROOTS) {
  for (const cycle of findCycles(listSources(join(ROOT, root)))) {
    failures.push(`import cycle: ${cycle.map((file) => relative(ROOT, file)).join(" <-> ")}`);
  }
}
failures.push(...foreignTableWrites(listSources(SERVER_SRC)));
const { layerOf, problems: layerProblems } = featureLayers();
failures.push(...layerProblems);
for (const entry of upwardImports(listSources(SERVER_SRC), layerOf)) failures.push(`upward import: ${entry}`);
failures.push(...checkDesignMap(ROOT, readFileSync(join(ROOT, "DESIGN.md"), "utf8")));

if (failures.length > 0) {
  console.error(
    `check-architecture: ${failures.length} problem(s)\n${failures.map((f) => `  ${f}`).join("\n")}`,
  );
  process.exit(1);
}
console.log(
  "check-architecture: no import cycles; every table is written only by its own feature folder; no feature imports " +
    "a value from a layer above its own; DESIGN.md names every folder and file under its headings",
);
