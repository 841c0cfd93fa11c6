import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkDesignMap, designMapProblems, readMapSections } from "./check-design-map.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const fence = "```";

const map = [
  "# A map",
  "",
  "## `src`",
  "",
  "Some words before the block.",
  "",
  `${fence}text`,
  "alpha/      the first folder",
  "            a continuation line naming nothing/",
  "beta.ts     a file",
  "alpha/deep.ts  a deeper path, counted for alpha/",
  fence,
].join("\n");

const tree = {
  src: ["alpha/", "beta.ts"],
  "src/alpha": ["deep.ts"],
};
const paths = new Set(["src", "src/alpha", "src/beta.ts", "src/alpha/deep.ts"]);
const fakeTree = { childrenOf: (folder) => tree[folder] ?? [], exists: (path) => paths.has(path) };

describe("the design map check", () => {
  it("reads each section's named paths, not its continuation lines", () => {
    expect(readMapSections(map)).toEqual(new Map([["src", ["alpha/", "beta.ts", "alpha/deep.ts"]]]));
  });

  it("passes a map that names everything that is there", () => {
    expect(designMapProblems(map, fakeTree)).toEqual([]);
  });

  it("names a folder the map leaves out", () => {
    const grown = { ...fakeTree, childrenOf: (folder) => (folder === "src" ? [...tree.src, "gamma/"] : []) };
    expect(designMapProblems(map, grown)).toEqual(["DESIGN.md (## `src`) has no line for src/gamma/"]);
  });

  it("names a path the map names that is not there", () => {
    const shrunk = {
      childrenOf: () => ["alpha/"],
      exists: (path) => path !== "src/beta.ts" && paths.has(path),
    };
    expect(designMapProblems(map, shrunk)).toEqual([
      "DESIGN.md (## `src`) names a path that does not exist: src/beta.ts",
    ]);
  });

  it("refuses a text with no map at all", () => {
    expect(designMapProblems("# Nothing here", fakeTree)).toHaveLength(1);
  });

  it("holds for this repository's DESIGN.md and the files git tracks", () => {
    const design = readFileSync(join(ROOT, "DESIGN.md"), "utf8");
    expect(checkDesignMap(ROOT, design, { untracked: false })).toEqual([]);
  });
});
