/**
 * Points a render error at the owner's code: the first frame of the sandbox's stack that lies in the compiled
 * script (`email.js`), mapped through the bundle's source map, as long as it lands in `template.tsx` or
 * `theme.tsx` (frames inside React or React Email say nothing useful to the author).
 */
import type { TraceMap } from "@jridgewell/trace-mapping";

const FRAME = /email\.js:(\d+):(\d+)/g;
const OWNER_FILE = /(?:^|[:/])(template|theme)\.tsx$/;

export async function ownerLocation(sourceMap: string, stack: string): Promise<string | undefined> {
  // Only failed renders need it, so the server does not load it at start.
  const { originalPositionFor, TraceMap } = await import("@jridgewell/trace-mapping");
  let map: TraceMap;
  try {
    map = new TraceMap(sourceMap);
  } catch {
    return undefined;
  }
  for (const match of stack.matchAll(FRAME)) {
    const position = originalPositionFor(map, { line: Number(match[1]), column: Number(match[2]) - 1 });
    const file = position.source?.match(OWNER_FILE)?.[1];
    if (file && position.line !== null) return `${file}.tsx:${position.line}:${(position.column ?? 0) + 1}`;
  }
  return undefined;
}
