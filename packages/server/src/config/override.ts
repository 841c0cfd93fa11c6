/**
 * Config overrides: JSON objects whose keys may use dot notation.
 *
 * Meaning of an override: dotted keys are just another spelling of nesting, so `{"a.b": 1}` and `{a: {b: 1}}` are
 * the same override. Applying an override deep-merges it into a base: an object merges key by key, anything else
 * (string, number, boolean, array, null) replaces what was there. `null` is stored as null; there is no unset.
 *
 * The normalised form of an override is the fully nested one (no dotted keys), which rendering works on. Stored
 * overrides keep the spelling they were written in, as the reference platform stores them (an owner who wrote
 * `{"teams.allowClientTeamCreation": true}` reads back exactly that): `mergeOverrideOverride` and `removeKeys`
 * change only the keys they must and leave every other key as it was spelled.
 */
import {
  type ConfigOverride,
  cloneJson,
  describeValue,
  getOwn,
  isPlainObject,
  type JsonObject,
  type JsonValue,
} from "./json.ts";
import { segmentProblem } from "./keys.ts";

// ---------------------------------------------------------------------------------------------------------------
// Shape validation
// ---------------------------------------------------------------------------------------------------------------

type KeyOccurrence = {
  /** Full path after expanding dots. */
  path: string[];
  /** The literal keys, one per nesting level, that spelled this path. */
  spelling: string[];
  /** Whether the value is a plain object (merges) rather than a leaf (replaces). */
  isObject: boolean;
  value: unknown;
};

function spell(spelling: string[]): string {
  let text = "…";
  for (let i = spelling.length - 1; i >= 0; i--) text = `{${JSON.stringify(spelling[i])}: ${text}}`;
  return text;
}

function jsonValueProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : `${value} is not a JSON number`;
    case "object":
      if (value === null || Array.isArray(value) || isPlainObject(value)) return undefined;
      return "only plain JSON objects are allowed";
    default:
      return `a ${typeof value} is not a JSON value`;
  }
}

/**
 * Checks that `override` is a well-formed override: a JSON object, keys made of valid dot-separated segments,
 * JSON values only, no key given twice through different spellings (`"a.b"` next to `{a: {b}}`), and no key set
 * beneath another key of the same override that holds a non-object value. Returns human-readable problems (empty
 * when fine). `undefined` values are ignored, as `JSON.stringify` would.
 */
export function validateOverrideShape(override: unknown): string[] {
  if (!isPlainObject(override)) {
    return [`the config override must be a JSON object, but got ${describeValue(override)}`];
  }
  const problems: string[] = [];
  const occurrences: KeyOccurrence[] = [];

  const visitArray = (items: unknown[], where: string) => {
    items.forEach((item, index) => {
      const at = `${where}[${index}]`;
      const problem = jsonValueProblem(item);
      if (problem) problems.push(`${at}: ${problem}`);
      else if (Array.isArray(item)) visitArray(item, at);
      else if (isPlainObject(item)) visitNestedJson(item, at);
    });
  };
  // Inside arrays, object keys are data rather than config keys: only check that values are JSON.
  const visitNestedJson = (object: Record<string, unknown>, where: string) => {
    for (const [key, item] of Object.entries(object)) {
      if (item === undefined) continue;
      const at = `${where}.${key}`;
      const problem = jsonValueProblem(item);
      if (problem) problems.push(`${at}: ${problem}`);
      else if (Array.isArray(item)) visitArray(item, at);
      else if (isPlainObject(item)) visitNestedJson(item, at);
    }
  };

  const visit = (object: Record<string, unknown>, parentPath: string[], parentSpelling: string[]) => {
    for (const [key, value] of Object.entries(object)) {
      if (value === undefined) continue;
      const segments = key.split(".");
      const path = [...parentPath, ...segments];
      const spelling = [...parentSpelling, key];
      const shown = path.join(".");
      const keyProblems = segments.map(segmentProblem).filter((p): p is string => p !== undefined);
      if (keyProblems.length > 0) {
        problems.push(
          `invalid key ${JSON.stringify(key)}${parentPath.length ? ` (under "${parentPath.join(".")}")` : ""}: ${keyProblems[0]}`,
        );
        continue;
      }
      const valueProblem = jsonValueProblem(value);
      if (valueProblem) {
        problems.push(`${shown}: ${valueProblem}`);
        continue;
      }
      occurrences.push({ path, spelling, isObject: isPlainObject(value), value });
      if (isPlainObject(value)) visit(value, path, spelling);
      else if (Array.isArray(value)) visitArray(value, shown);
    }
  };
  visit(override, [], []);

  const byPath = new Map<string, KeyOccurrence[]>();
  for (const occurrence of occurrences) {
    const joined = occurrence.path.join(".");
    byPath.set(joined, [...(byPath.get(joined) ?? []), occurrence]);
  }
  for (const [joined, list] of byPath) {
    if (list.length > 1) {
      problems.push(
        `key "${joined}" is given more than once (as ${list.map((o) => spell(o.spelling)).join(" and ")}); give each key only once`,
      );
    }
  }
  const joinedPaths = [...byPath.keys()];
  for (const occurrence of occurrences) {
    if (occurrence.isObject) continue;
    const joined = occurrence.path.join(".");
    const beneath = joinedPaths.find((other) => other.startsWith(`${joined}.`));
    if (beneath !== undefined) {
      problems.push(
        `key "${beneath}" is set beneath "${joined}", which the same override sets to ${describeValue(occurrence.value)}; set "${joined}" to an object instead, or drop one of the two`,
      );
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------------------
// Normalising and applying
// ---------------------------------------------------------------------------------------------------------------

/** Walks (creating as needed) to the object at `segments`; a non-object found on the way is replaced by `{}`. */
function ensureObjectAt(root: JsonObject, segments: readonly string[]): JsonObject {
  let node = root;
  for (const segment of segments) {
    const child = getOwn(node, segment);
    if (isPlainObject(child)) {
      node = child as JsonObject;
    } else {
      const created: JsonObject = {};
      node[segment] = created;
      node = created;
    }
  }
  return node;
}

/** Deep-merges `source` (which may use dot notation at any depth) into `target`, in place. */
function mergeInto(target: JsonObject, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined) continue;
    const segments = key.split(".");
    if (segments.includes("__proto__")) continue;
    const last = segments[segments.length - 1]!;
    const parent = ensureObjectAt(target, segments.slice(0, -1));
    if (isPlainObject(value)) {
      mergeInto(ensureObjectAt(parent, [last]), value);
    } else {
      parent[last] = cloneJson(value as JsonValue);
    }
  }
}

/** The normalised (fully nested, dot-free) form of an override. Returns a new object. */
export function normalizeOverride(override: ConfigOverride): ConfigOverride {
  const result: JsonObject = {};
  mergeInto(result, override);
  return result;
}

/**
 * Applies an override to a base object: expands dot keys and deep-merges. Objects merge key by key; any other value
 * (including null and arrays) replaces. Neither argument is modified.
 */
export function applyOverride(base: JsonObject, override: ConfigOverride): JsonObject {
  const result = cloneJson(base);
  mergeInto(result, override);
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
// Override-overrides (PATCH) and key removal
// ---------------------------------------------------------------------------------------------------------------

/**
 * `override` without what it sets at `path` or beneath it, every other key kept with its spelling. A key that is an
 * ancestor of `path` and holds an object keeps that object minus the part at `path` (and goes when the removal
 * leaves the object empty). A key that is an ancestor of `path` and holds anything else is kept, unless
 * `dropLeafAncestors`: a write at `path` is about to turn it into an object, which is what the write means.
 * Returns a new object; `override` is not modified.
 */
function withoutPath(override: JsonObject, path: readonly string[], dropLeafAncestors: boolean): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined || key === "__proto__") continue;
    const segments = key.split(".");
    const shared = Math.min(segments.length, path.length);
    let overlaps = true;
    for (let i = 0; i < shared && overlaps; i++) overlaps = segments[i] === path[i];
    if (!overlaps) {
      out[key] = cloneJson(value);
    } else if (segments.length < path.length) {
      if (isPlainObject(value)) {
        const inner = withoutPath(value as JsonObject, path.slice(segments.length), dropLeafAncestors);
        if (Object.keys(inner).length > 0 || Object.keys(value).length === 0) out[key] = inner;
      } else if (!dropLeafAncestors) {
        out[key] = cloneJson(value);
      }
    }
    // Otherwise the key is at `path` or beneath it: dropped.
  }
  return out;
}

/**
 * PATCH semantics for a stored override (PROTOCOL.md §9). Each top-level key of `patch` (dotted or not) replaces that
 * key and everything beneath it in `existingOverride`, whichever way the existing override spelled them: patching
 * `"auth.oauth"` drops an existing `"auth.oauth.providers.x"` as well as the `oauth` part of a nested
 * `{auth: {oauth: …}}`, while patching `"auth.oauth.providers.x.clientId"` keeps the provider's other fields. Note
 * that a nested patch key such as `{auth: {allowSignUp: false}}` replaces all of `auth`; use `"auth.allowSignUp"` to
 * change one field.
 *
 * The patch's keys are added after the remaining keys, spelled as in the patch (the reference platform's override
 * of an override). Returns a new override; neither argument is modified.
 */
export function mergeOverrideOverride(
  existingOverride: ConfigOverride,
  patch: ConfigOverride,
): ConfigOverride {
  const keys = Object.keys(patch).filter(
    (key) => patch[key] !== undefined && !key.split(".").includes("__proto__"),
  );
  let result = cloneJson(existingOverride);
  for (const key of keys) result = withoutPath(result, key.split("."), true);
  for (const key of keys) result[key] = cloneJson(patch[key]!);
  return result;
}

/**
 * Removes each of `keys` (dot notation) and everything beneath it from the override, as the reset-keys endpoint
 * does, whichever way the override spelled them. Objects left empty by a removal are removed as well; every other
 * key keeps its spelling. Returns a new override.
 */
export function removeKeys(override: ConfigOverride, keys: readonly string[]): ConfigOverride {
  let result = cloneJson(override);
  for (const key of keys) {
    if (key === "") continue;
    result = withoutPath(result, key.split("."), false);
  }
  return result;
}

/**
 * Whether the normalised override sets something at `path`, at one of its ancestors (a leaf there replaces the
 * whole subtree) or beneath it.
 */
export function overrideTouchesPath(normalized: JsonObject, path: readonly string[]): boolean {
  let node: JsonValue = normalized;
  for (const segment of path) {
    if (!isPlainObject(node)) return true;
    const child = getOwn(node, segment);
    if (child === undefined) return false;
    node = child as JsonValue;
  }
  return true;
}

/**
 * The override value that, applied over `lower` (what the levels below produce), yields exactly `desired`: entries
 * `lower` has but `desired` lacks become `null`, which the renderer reads as "removed". Without them a record set at
 * a higher level would only add to the record below, never take entries away.
 */
export function overrideToReach(lower: unknown, desired: unknown): JsonValue {
  if (!isPlainObject(desired)) return (desired ?? null) as JsonValue;
  const out: Record<string, JsonValue> = {};
  if (isPlainObject(lower)) {
    for (const key of Object.keys(lower)) out[key] = null;
  }
  for (const [key, value] of Object.entries(desired)) {
    if (value === undefined) continue;
    out[key] = overrideToReach(isPlainObject(lower) ? lower[key] : undefined, value);
  }
  return out;
}
