/**
 * DESIGN.md is the map of the repository, and a map that drifts is worse than none: a newcomer trusts it. So the map
 * is checked, as text, against the tree:
 *
 * - a heading "## `folder`" followed by a ```text block is a section of the map; each line of the block that starts
 *   at its first column names a path, relative to that folder, then says what it is (indented lines continue it);
 * - every path a section names must exist;
 * - every folder and file directly in a section's folder must be named, so a new feature folder, script or top-level
 *   file cannot land without its line. Test files are left out: they sit beside the code they test.
 *
 * What is "in a folder" is what git tracks plus what it would track (untracked, not ignored), so build outputs and
 * node_modules never count, and the check gives the same answer in a fresh clone as in a working copy.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const SECTION_HEADING = /^#{2,3} `([^`]+)`\s*$/;
const TEST_FILE = /\.test\.(ts|tsx|mjs|js)$/;

/** The sections of a map: folder -> the paths its block names. */
export function readMapSections(designText) {
  const sections = new Map();
  const lines = designText.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const heading = SECTION_HEADING.exec(lines[index]);
    if (!heading) continue;
    let cursor = index + 1;
    while (cursor < lines.length && !lines[cursor].startsWith("```") && !SECTION_HEADING.test(lines[cursor]))
      cursor++;
    if (cursor >= lines.length || !lines[cursor].startsWith("```")) continue;
    const named = [];
    for (cursor++; cursor < lines.length && !lines[cursor].startsWith("```"); cursor++) {
      const line = lines[cursor];
      if (line.trim() === "" || /^\s/.test(line)) continue;
      named.push(line.split(/\s+/)[0]);
    }
    sections.set(heading[1], named);
  }
  return sections;
}

/**
 * Direct children of `folder` (relative to `root`) as git sees them: folders end with "/". `untracked: false` counts
 * only what git tracks (the test suite's view: files a running test leaves behind must not change its answer).
 */
export function gitChildren(root, folder, { untracked = true } = {}) {
  const prefix = folder === "." ? "" : `${folder.replace(/\/$/, "")}/`;
  const output = execFileSync(
    "git",
    ["ls-files", "--cached", ...(untracked ? ["--others", "--exclude-standard"] : []), "--", prefix || "."],
    { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const children = new Set();
  for (const file of output.split("\n")) {
    if (!file.startsWith(prefix) || file === prefix) continue;
    // A tracked file deleted in the working copy is not there any more.
    if (!existsSync(join(root, file))) continue;
    const rest = file.slice(prefix.length);
    const slash = rest.indexOf("/");
    if (slash >= 0) children.add(`${rest.slice(0, slash)}/`);
    else if (!TEST_FILE.test(rest)) children.add(rest);
  }
  return [...children].sort();
}

/**
 * The problems of a map against a tree. `childrenOf(folder)` lists what a folder holds (folders with a trailing
 * "/"); `exists(path)` says whether a path (relative to the root) is there.
 */
export function designMapProblems(designText, { childrenOf, exists }) {
  const problems = [];
  const sections = readMapSections(designText);
  if (sections.size === 0)
    problems.push("DESIGN.md: no map sections (headings like ## `folder` with a text block)");
  for (const [folder, named] of sections) {
    const base = folder === "." ? "" : `${folder.replace(/\/$/, "")}/`;
    if (!exists(folder)) {
      problems.push(`DESIGN.md names a folder that does not exist: ${folder}`);
      continue;
    }
    const namedFirstSegments = new Set();
    for (const path of named) {
      if (!exists(`${base}${path}`.replace(/\/$/, ""))) {
        problems.push(`DESIGN.md (## \`${folder}\`) names a path that does not exist: ${base}${path}`);
      }
      const slash = path.indexOf("/");
      namedFirstSegments.add(slash >= 0 && slash < path.length - 1 ? path.slice(0, slash + 1) : path);
    }
    for (const child of childrenOf(folder)) {
      if (!namedFirstSegments.has(child)) {
        problems.push(`DESIGN.md (## \`${folder}\`) has no line for ${base}${child}`);
      }
    }
  }
  return problems;
}

/** The check as `npm run lint` runs it, on this repository. */
export function checkDesignMap(root, designText, options = {}) {
  return designMapProblems(designText, {
    childrenOf: (folder) => gitChildren(root, folder, options),
    exists: (path) => existsSync(join(root, path)),
  });
}
