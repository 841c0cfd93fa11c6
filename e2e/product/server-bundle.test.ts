import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PGLITE_V8_FLAGS } from "../../packages/server/src/db/open-pglite.ts";

/**
 * The server build as `npm start` and the Deploy section run it (Vitest's global setup built it). What a file
 * imports statically is loaded at start; a database driver must wait until `openDatabase` picks it.
 */
const DIST = fileURLToPath(new URL("../../packages/server/dist/", import.meta.url));

/**
 * The specifiers of each built file's static imports, as V8 parses them (imports sit between code in a split build,
 * and embedded sources in template strings hold `import` lines too, so text search would not do). Parsing a module
 * this way needs a flag, hence a child process.
 */
function staticImportsOfBuild(): Record<string, string[]> {
  const script = `
    import { readdirSync, readFileSync } from "node:fs";
    import vm from "node:vm";
    const files = readdirSync(process.argv[1]).filter((name) => name.endsWith(".js"));
    const imports = Object.fromEntries(files.map((name) => [
      name,
      new vm.SourceTextModule(readFileSync(process.argv[1] + name, "utf8")).dependencySpecifiers,
    ]));
    console.log(JSON.stringify(imports));`;
  const output = execFileSync(
    process.execPath,
    ["--experimental-vm-modules", "--no-warnings", "--input-type=module", "-e", script, DIST],
    { encoding: "utf8" },
  );
  return JSON.parse(output) as Record<string, string[]>;
}

/** Every npm package reached from `entry` through static imports, following the build's own chunks. */
function packagesLoadedWith(build: Record<string, string[]>, entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of build[file] ?? []) {
      if (specifier.startsWith("./")) visit(specifier.slice(2));
      else if (!specifier.startsWith("node:")) packages.add(specifier);
    }
  };
  visit(entry);
  return packages;
}

/** The file esbuild made for a module imported with `import()` (named after the module, plus a hash). */
function chunkOf(build: Record<string, string[]>, module: string): string {
  const file = Object.keys(build).find((name) => new RegExp(`^${module}-[A-Z0-9]+\\.js$`).test(name));
  if (!file) throw new Error(`no ${module} file in the build`);
  return file;
}

describe("the server build", () => {
  it("loads neither database driver at start, and each with its own opener", () => {
    const build = staticImportsOfBuild();
    const atStart = packagesLoadedWith(build, "main.js");
    // The parse must see imports at all: packages every request needs are there.
    expect(atStart).toContain("zod");
    expect(atStart).toContain("@node-rs/argon2");
    expect([...atStart].filter((name) => name === "pg" || name.startsWith("@electric-sql/"))).toEqual([]);

    expect(packagesLoadedWith(build, chunkOf(build, "open-postgres"))).toContain("pg");
    const embedded = packagesLoadedWith(build, chunkOf(build, "open-pglite"));
    expect(embedded).toContain("@electric-sql/pglite");
    expect(embedded).not.toContain("pg");
  });

  it("sets WebAssembly flags for PGlite that this Node's V8 knows", () => {
    // An unknown flag would only print a warning, and the memory the flags save would quietly come back.
    const known = execFileSync(process.execPath, ["--v8-options"], { encoding: "utf8" });
    for (const flag of PGLITE_V8_FLAGS) expect(known).toContain(`  ${flag.split("=")[0]!} `);
  });
});
