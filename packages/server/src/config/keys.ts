/**
 * Config key syntax. A key is one or more dot-separated segments; each segment is made of letters, digits and
 * `_ : $ -`. Record keys (provider ids, domain ids, permission ids, ...) are single segments.
 */

export const CONFIG_KEY_SEGMENT_PATTERN = /^[A-Za-z0-9_:$-]+$/;

/** Segments that would reach into the object prototype; never accepted. */
const RESERVED_SEGMENTS = new Set(["__proto__"]);

/** Why a single segment is not acceptable, or undefined when it is. */
export function segmentProblem(segment: string): string | undefined {
  if (segment === "") return "empty segment (check for a leading, trailing or doubled dot)";
  if (RESERVED_SEGMENTS.has(segment)) return `"${segment}" is a reserved name`;
  if (!CONFIG_KEY_SEGMENT_PATTERN.test(segment)) {
    return `segment "${segment}" may only contain letters, digits and the characters _ : $ -`;
  }
  return undefined;
}

/** Why a (possibly dotted) key is not acceptable, or undefined when it is. */
export function configKeyProblem(key: string): string | undefined {
  for (const segment of key.split(".")) {
    const problem = segmentProblem(segment);
    if (problem) return problem;
  }
  return undefined;
}

export function isValidConfigKey(key: string): boolean {
  return configKeyProblem(key) === undefined;
}

export function splitConfigKey(key: string): string[] {
  return key.split(".");
}

export function joinConfigPath(path: readonly PropertyKey[]): string {
  return path.map((segment) => String(segment)).join(".");
}
