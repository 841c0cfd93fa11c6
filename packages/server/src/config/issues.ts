/**
 * Turns zod issues into plain-English problems that name the offending config key, e.g.
 * `auth.allowSignUp: expected true or false, but got the string "yes"`.
 */
import { z } from "zod";
import { describeValue } from "./json.ts";
import { joinConfigPath } from "./keys.ts";

/**
 * A problem found in a config: `where` names the key as the reader should see it, `detail` says what is wrong, and
 * `path` is the config path it is about (used to say which override set it).
 */
export type ConfigProblem = { path: string[]; where: string; detail: string };

const RECORD_KEY_PLACEHOLDER = "<id>";

function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let current = schema;
  for (;;) {
    if (
      current instanceof z.ZodPrefault ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodOptional
    ) {
      current = current.unwrap();
    } else if (current instanceof z.ZodPipe) {
      current = current.out;
    } else {
      return current;
    }
  }
}

/** The schema that governs the value at `path`, or undefined when the path leaves the schema. */
function schemaAt(root: z.core.$ZodType, path: readonly PropertyKey[]): z.core.$ZodType | undefined {
  let current: z.core.$ZodType | undefined = unwrap(root);
  for (const segment of path) {
    if (current instanceof z.ZodObject) {
      const next: z.core.$ZodType | undefined = Object.hasOwn(current.shape, String(segment))
        ? current.shape[String(segment)]
        : undefined;
      if (next === undefined) return undefined;
      current = unwrap(next);
    } else if (current instanceof z.ZodRecord) {
      current = unwrap(current.valueType);
    } else if (current instanceof z.ZodArray) {
      current = unwrap(current.element);
    } else {
      return undefined;
    }
  }
  return current;
}

function knownKeysAt(root: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  const schema = schemaAt(root, path);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** Every key path the schema knows, record keys written as `<id>`. */
function allKnownPaths(root: z.core.$ZodType): string[][] {
  const out: string[][] = [];
  const walk = (schema: z.core.$ZodType, prefix: string[], depth: number) => {
    if (depth > 12) return;
    const current = unwrap(schema);
    if (current instanceof z.ZodObject) {
      for (const [key, child] of Object.entries(current.shape as Record<string, z.core.$ZodType>)) {
        out.push([...prefix, key]);
        walk(child, [...prefix, key], depth + 1);
      }
    } else if (current instanceof z.ZodRecord) {
      walk(current.valueType, [...prefix, RECORD_KEY_PLACEHOLDER], depth + 1);
    }
  };
  walk(root, [], 0);
  return out;
}

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

function isCloseMatch(unknown: string, known: string): boolean {
  if (unknown.toLowerCase() === known.toLowerCase()) return true;
  const allowed = Math.min(2, Math.floor(Math.min(unknown.length, known.length) / 4));
  return editDistance(unknown.toLowerCase(), known.toLowerCase()) <= allowed;
}

function suggestionFor(
  root: z.core.$ZodType,
  parentPath: readonly PropertyKey[],
  key: string,
): string | undefined {
  const siblings = knownKeysAt(root, parentPath);
  const sibling = siblings.find((candidate) => isCloseMatch(key, candidate));
  if (sibling !== undefined) return joinConfigPath([...parentPath, sibling]);
  // The key may belong somewhere else, e.g. `allowLocalhost` written at the top instead of under `domains`.
  const elsewhere = allKnownPaths(root).filter((p) => p[p.length - 1]?.toLowerCase() === key.toLowerCase());
  if (elsewhere.length === 1) return elsewhere[0]!.join(".");
  return undefined;
}

const EXPECTED_TEXT: Record<string, string> = {
  boolean: "true or false",
  string: "a string",
  number: "a number",
  int: "an integer",
  object: "an object",
  record: "an object mapping ids to entries",
  array: "an array",
  tuple: "an array of fixed length",
};

function formatValues(values: readonly unknown[]): string {
  const shown = values.map((value) => JSON.stringify(value));
  if (shown.length === 1) return shown[0]!;
  return `one of ${shown.join(", ")}`;
}

function formatOne(root: z.core.$ZodType, issue: z.core.$ZodIssue): ConfigProblem[] {
  const path = issue.path.map((segment) => String(segment));
  const where = path.length ? path.join(".") : "(top level)";
  const got = "input" in issue ? issue.input : undefined;
  const one = (detail: string): ConfigProblem[] => [{ path, where, detail }];
  switch (issue.code) {
    case "invalid_type": {
      const expected = EXPECTED_TEXT[issue.expected] ?? issue.expected;
      if (got === undefined) return one(`is required (${expected})`);
      return one(`expected ${expected}, but got ${describeValue(got)}`);
    }
    case "invalid_value": {
      if (got === undefined) return one(`is required (${formatValues(issue.values)})`);
      return one(`must be ${formatValues(issue.values)}, but got ${describeValue(got)}`);
    }
    case "unrecognized_keys": {
      const known = knownKeysAt(root, issue.path);
      return issue.keys.map((key) => {
        const suggestion = suggestionFor(root, issue.path, key);
        const hint = suggestion ? `; did you mean "${suggestion}"?` : "";
        const list = known.length
          ? `${suggestion ? " " : ". "}Known keys ${path.length ? `under ${where}` : "at the top level"}: ${known.join(", ")}`
          : "";
        return {
          path: [...path, key],
          where: joinConfigPath([...path, key]),
          detail: `unknown key${hint}${list}`,
        };
      });
    }
    case "invalid_key": {
      const key = path[path.length - 1] ?? "";
      const reasons = issue.issues.map((inner) => inner.message).join("; ");
      return [
        {
          path,
          where: path.slice(0, -1).join(".") || "(top level)",
          detail: `invalid id ${JSON.stringify(key)}: ${reasons}`,
        },
      ];
    }
    case "invalid_format":
      return one(`${issue.message}, but got ${describeValue(got)}`);
    case "invalid_union": {
      // An option whose only problem is the value's type at the top is not what the writer meant; when exactly one
      // option is left, its own problems say what is wrong (`prices.monthly.USD`) better than "Invalid input".
      const meant = (issue.errors ?? []).filter(
        (option) =>
          !option.every(
            (inner) =>
              inner.path.length === 0 && (inner.code === "invalid_type" || inner.code === "invalid_value"),
          ),
      );
      if (meant.length === 1) {
        return meant[0]!.flatMap((inner) =>
          formatOne(root, { ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue),
        );
      }
      return one(issue.message);
    }
    case "too_small":
      if (issue.origin === "string") return one("must not be empty");
      if (issue.origin === "array") return one(`must have at least ${issue.minimum} items`);
      return one(`must be at least ${issue.minimum}, but got ${describeValue(got)}`);
    case "too_big":
      if (issue.origin === "array" || issue.origin === "string")
        return one(`is too long (at most ${issue.maximum})`);
      return one(`must be at most ${issue.maximum}, but got ${describeValue(got)}`);
    default:
      return one(issue.message);
  }
}

/** `where: detail`, with an optional note after the location. */
export function problemText(problem: ConfigProblem, note?: string): string {
  return `${problem.where}${note ? ` ${note}` : ""}: ${problem.detail}`;
}

/** Formats zod issues produced by parsing with `reportInput: true` against `root`. */
export function formatIssues(root: z.core.$ZodType, issues: readonly z.core.$ZodIssue[]): ConfigProblem[] {
  return issues.flatMap((issue) => formatOne(root, issue));
}
