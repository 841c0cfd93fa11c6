// CPU profiles of a server process, taken over one measured phase only: a module preloaded into the server
// (PROFILE_HOOK) starts V8's sampling profiler on the first SIGUSR2 and writes the profile on the second, so the
// start and the set-up requests stay out of it. Then where the self time went, by function and by module, with
// frames in the server's bundle traced back to their sources through its source map.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * `--import` this into the server, with GATEHOUSE_BENCH_PROFILE naming the file each stop writes (whole: written
 * beside it, then renamed); a start says it has begun by creating that name + ".started".
 */
export const PROFILE_HOOK = `data:text/javascript,${encodeURIComponent(`
  import { Session } from "node:inspector/promises";
  import { renameSync, writeFileSync } from "node:fs";
  const session = new Session();
  session.connect();
  let running = false;
  process.on("SIGUSR2", async () => {
    if (!running) {
      running = true;
      await session.post("Profiler.enable");
      // 100 µs between samples: a /users/me request takes ~0.3-0.5 ms of the main thread.
      await session.post("Profiler.setSamplingInterval", { interval: 100 });
      await session.post("Profiler.start");
      writeFileSync(process.env.GATEHOUSE_BENCH_PROFILE + ".started", "");
      return;
    }
    running = false;
    const { profile } = await session.post("Profiler.stop");
    const file = process.env.GATEHOUSE_BENCH_PROFILE;
    writeFileSync(file + ".partial", JSON.stringify(profile));
    renameSync(file + ".partial", file);
  });
`)}`;

const root = fileURLToPath(new URL("../..", import.meta.url));
const serverBundle = `file://${join(root, "packages/server/dist")}/`;
const require = createRequire(join(root, "packages/server/package.json"));

/** Maps a position in a built file back to its source file, when the file has a map beside it. */
function sourceLocator() {
  const { TraceMap, originalPositionFor } = require("@jridgewell/trace-mapping");
  const maps = new Map();
  return (url, line, column) => {
    if (!url.startsWith(serverBundle)) return null;
    if (!maps.has(url)) {
      try {
        const file = fileURLToPath(url);
        const map = JSON.parse(readFileSync(`${file}.map`, "utf8"));
        maps.set(url, { map: new TraceMap(map), dir: dirname(file) });
      } catch {
        maps.set(url, null);
      }
    }
    const entry = maps.get(url);
    if (!entry) return null;
    // V8's positions are 0-based; trace-mapping's lines are 1-based.
    const position = originalPositionFor(entry.map, { line: line + 1, column });
    return position.source ? { source: join(entry.dir, position.source), name: position.name } : null;
  };
}

/** What a source path belongs to: an npm package, a Gatehouse source folder, or Node itself. */
function moduleOf(path) {
  if (!path) return "(native: GC, idle, Node's C++ and V8's builtins)";
  if (path.startsWith("node:")) return path;
  if (path.startsWith("data:")) return "(this bench's profile hook)";
  const local = path.startsWith("file://") ? fileURLToPath(path) : path;
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(local);
  if (packageMatch) return packageMatch[1];
  const inRepo = relative(root, local);
  if (inRepo.startsWith("..")) return local;
  // packages/server/src/features/users/route.ts -> server/features/users
  const parts = inRepo
    .replace(/^packages\//, "")
    .replace(/\/src\//, "/")
    .split("/");
  return parts.slice(0, parts.length > 3 ? 3 : parts.length - 1).join("/") || inRepo;
}

/**
 * Self time per function (name and source file) and per module, largest first. Garbage collection, the idle
 * loop and native code V8 cannot attribute keep their own names ("(garbage collector)", "(idle)", "(program)").
 */
export function summarizeProfile(profile) {
  const locate = sourceLocator();
  const selfMs = new Map();
  const deltas = profile.timeDeltas;
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index];
    // A sample's time is the gap to the next sample.
    const ms = (deltas[index + 1] ?? 0) / 1000;
    selfMs.set(id, (selfMs.get(id) ?? 0) + ms);
  }
  const functions = new Map();
  const modules = new Map();
  let total = 0;
  for (const [id, ms] of selfMs) {
    const { callFrame } = byNode.get(id);
    const traced = locate(callFrame.url, callFrame.lineNumber, callFrame.columnNumber);
    const source = traced?.source ?? callFrame.url;
    const name = callFrame.functionName || traced?.name || "(anonymous)";
    const module = moduleOf(source);
    const where = !source
      ? ""
      : source.startsWith("data:")
        ? "(profile hook)"
        : relative(root, source.startsWith("file://") ? fileURLToPath(source) : source);
    const key = `${name}\u0000${where}`;
    functions.set(key, (functions.get(key) ?? 0) + ms);
    modules.set(module, (modules.get(module) ?? 0) + ms);
    total += ms;
  }
  const ranked = (map) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).map(([key, ms]) => ({ key, ms, share: ms / total }));
  return {
    totalMs: total,
    functions: ranked(functions).map(({ key, ms, share }) => {
      const [name, where] = key.split("\u0000");
      return { name, where, ms, share };
    }),
    modules: ranked(modules).map(({ key, ms, share }) => ({ module: key, ms, share })),
  };
}

/** The top rows of a summary, as report lines; `requests` makes a per-request figure. */
export function profileLines(summary, { top = 15, requests }) {
  const perRequest = (ms) => (requests ? `${((ms * 1000) / requests).toFixed(1).padStart(6)} µs/req` : "");
  const pct = (share) => `${(share * 100).toFixed(1).padStart(5)} %`;
  const lines = ["  by module (self time)"];
  for (const row of summary.modules.slice(0, 10))
    lines.push(`    ${pct(row.share)}  ${perRequest(row.ms)}  ${row.module}`);
  lines.push("  by function (self time)");
  for (const row of summary.functions.slice(0, top))
    lines.push(`    ${pct(row.share)}  ${perRequest(row.ms)}  ${row.name}  ${row.where}`);
  return lines;
}
