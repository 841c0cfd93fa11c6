/**
 * Test support for the cross-cutting route tests (bad-input, tenant-isolation): reads a route's zod request
 * schemas to build valid sample inputs and type-wrong variants of them, so new routes are covered automatically.
 * Reads zod's internal `_zod.def`, which is stable within zod 4.
 */
import type { z } from "zod";
import type { AnyRoute } from "../http/route.ts";

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  entries?: Record<string, string | number>;
  values?: unknown[];
  getter?: () => z.ZodType;
  checks?: unknown[];
};

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/** The schema under optional/nullable/default/pipe wrappers: the one that decides what the value may be. */
export function innerSchema(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else if (def.type === "lazy" && def.getter) current = def.getter();
    else return current;
  }
  return current;
}

/** The kind of value a field takes: zod's type name of its inner schema (string, number, object, enum, ...). */
export function fieldKind(schema: z.ZodType): string {
  return defOf(innerSchema(schema)).type;
}

/** The object shapes a body or query schema accepts: one per union option. */
export function objectShapes(schema: z.ZodType): Record<string, z.ZodType>[] {
  const def = defOf(innerSchema(schema));
  if (def.type === "object" && def.shape) return [def.shape];
  if (def.type === "union" && def.options) return def.options.flatMap(objectShapes);
  if (def.type === "intersection" && def.left && def.right) {
    const [left] = objectShapes(def.left);
    const [right] = objectShapes(def.right);
    return left && right ? [{ ...left, ...right }] : [];
  }
  return [];
}

/** Route parameter names, in path order (`/team-memberships/:team_id/:user_id` -> team_id, user_id). */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
}

/** The path under /api/v1 with each parameter replaced (values are URL-encoded unless `raw`). */
export function concretePath(
  path: string,
  values: Record<string, string>,
  raw: ReadonlySet<string> = new Set(),
): string {
  return `/api/v1${path.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => {
    const value = values[name] ?? "00000000-0000-4000-8000-000000000000";
    return raw.has(name) ? value : encodeURIComponent(value);
  })}`;
}

export function routeName(route: AnyRoute): string {
  return `${route.method} ${route.path}`;
}

/** Values tried, in order, as a valid sample of a field; `hint` (an id we know) comes first. */
const SAMPLE_CANDIDATES: readonly unknown[] = [
  "sample",
  "user@example.com",
  "http://localhost:3000/handler/sample",
  "00000000-0000-4000-8000-000000000000",
  "sample_value",
  1,
  true,
  false,
  {},
  [],
  "123456",
  // A token-like string long enough for PKCE values and similar patterns.
  "a".repeat(64),
];

/** A value the schema accepts, or undefined when none of the candidates fits. */
export function sampleValue(schema: z.ZodType, hint?: unknown): unknown {
  const inner = innerSchema(schema);
  const def = defOf(inner);
  const candidates: unknown[] = [];
  if (hint !== undefined) candidates.push(hint);
  if (def.type === "enum" && def.entries) candidates.push(...Object.values(def.entries));
  if (def.type === "literal" && def.values) candidates.push(...def.values);
  if (def.type === "object") candidates.push(sampleObject(inner, {}));
  candidates.push(...SAMPLE_CANDIDATES);
  if (def.type === "string") {
    // Codes and challenges have a fixed or minimum length: a string of exactly that length.
    for (const check of def.checks ?? []) {
      const { length, minimum } = (
        check as unknown as { _zod: { def: { length?: number; minimum?: number } } }
      )._zod.def;
      const size = length ?? minimum;
      if (size !== undefined && size > 0 && size <= 10_000) candidates.push("a".repeat(size));
    }
  }
  for (const candidate of candidates) if (schema.safeParse(candidate).success) return candidate;
  return undefined;
}

/**
 * A valid sample of an object schema: its required fields, each with a sample value (`hints` by field name).
 * A union gives the sample of its first option.
 */
export function sampleObject(
  schema: z.ZodType,
  hints: Record<string, unknown>,
  shape = objectShapes(schema)[0],
): Record<string, unknown> {
  const sample: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(shape ?? {})) {
    if (field.safeParse(undefined).success) continue;
    // URLs by name, so redirect and callback checks see a URL (localhost is trusted in development).
    const hint =
      hints[name] ?? (/_(url|uri)$/.test(name) ? "http://localhost:3000/handler/sample" : undefined);
    sample[name] = sampleValue(field, hint);
  }
  return sample;
}

const LONG_STRING = "x".repeat(100_000);
const NUL_STRING = "nul\u0000byte";
const UNICODE_STRING = "ünïcødé ✓ 💥 \u202e";

/** Wrong-typed and edge values for a JSON field of this kind: what a careless or hostile client sends. */
export function badJsonValues(schema: z.ZodType): unknown[] {
  switch (fieldKind(schema)) {
    case "string":
    case "template_literal":
      return [12345, { nested: "object" }, LONG_STRING, NUL_STRING, UNICODE_STRING];
    case "number":
    case "int":
    case "bigint":
      return ["12", -1, 1e300, 2.5, -(2 ** 60)];
    case "boolean":
      return ["true", 1];
    case "enum":
    case "literal":
      return ["not-an-option", 12345, NUL_STRING];
    case "array":
      return [{}, "string", [12345, { nested: true }], Array.from({ length: 2000 }, () => "x")];
    case "object":
    case "record":
      return ["string", [], { [NUL_STRING]: NUL_STRING }, { deep: { deeper: { deepest: LONG_STRING } } }];
    default:
      // unknown, any, unions: a bit of everything, including what jsonb cannot store (\u0000).
      return [12345, "string", { key: NUL_STRING }, [null], LONG_STRING];
  }
}

/** Query values are strings: wrong formats, signs, sizes, a NUL byte, unicode and the empty string. */
export const BAD_QUERY_VALUES: readonly string[] = [
  "not-a-valid-value",
  "-1",
  "99999999999999999999",
  "1e400",
  "x".repeat(5000),
  "nul\u0000byte",
  UNICODE_STRING,
  "",
];

/** Path parameter replacements (`raw`: already in URL form, sent as is). */
export const BAD_PATH_VALUES: readonly { label: string; value: string; raw?: boolean }[] = [
  { label: "a non-UUID string", value: "not-a-uuid" },
  { label: "a UUID that does not exist", value: "7b0c8a4e-5d3f-4b6a-9c2e-1f0a3b4c5d6e" },
  { label: "a 5,000-character string", value: "a".repeat(5000) },
  { label: "%00", value: "%00", raw: true },
  { label: "unicode", value: UNICODE_STRING },
];
