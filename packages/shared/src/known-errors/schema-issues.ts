/**
 * SCHEMA_ERROR's text (PROTOCOL.md §2.3) read back into its problems, and each problem said in words a person
 * reads next to a form field. The text is a first line naming the route ("Request validation failed on POST
 * /users:") and one "- " line per problem: "- body.primary_email: Invalid email address", "- body.code must be
 * defined", "- body contains unknown properties: extra". Pure, so the dashboard and @gatehouse/react share it.
 */

export type SchemaIssue = {
  /** Where in the request: `body`, `query`, `params`, `headers`, `auth`. */
  location: string;
  /** The field's path inside it: `["primary_email"]`, `["members", "0", "user_id"]`; empty for the whole part. */
  path: string[];
  /** The problem in words, without the field's name: "is not a valid email address". */
  problem: string;
};

const LOCATIONS = new Set(["body", "query", "params", "headers", "auth"]);

/** Reads the problems out of SCHEMA_ERROR's text; lines it cannot read are left out. */
export function schemaIssues(text: string): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line.startsWith("- ")) continue;
    const rest = line.slice(2);
    const unknown = /^([\w.[\]-]+) contains unknown properties: (.+)$/.exec(rest);
    if (unknown) {
      const { location, path } = splitWhere(unknown[1]!);
      issues.push({ location, path, problem: `has fields this version does not accept (${unknown[2]})` });
      continue;
    }
    const missing = /^([\w.[\]-]+) must be defined$/.exec(rest);
    if (missing) {
      const { location, path } = splitWhere(missing[1]!);
      issues.push({ location, path, problem: "is required" });
      continue;
    }
    const other = /^([\w.[\]-]+): (.+)$/.exec(rest);
    if (other) {
      const { location, path } = splitWhere(other[1]!);
      issues.push({ location, path, problem: problemInWords(other[2]!) });
    }
  }
  return issues;
}

function splitWhere(where: string): { location: string; path: string[] } {
  const parts = where.split(".").filter(Boolean);
  if (parts.length > 0 && LOCATIONS.has(parts[0]!)) return { location: parts[0]!, path: parts.slice(1) };
  return { location: "body", path: parts };
}

/** Zod's English messages (and the server's own field rules) as the end of a sentence about a field. */
export function problemInWords(message: string): string {
  const text = message.trim();
  let match = /^Too small: expected (\w+) to have (>=|>|exactly )(\d+) (\w+)/.exec(text);
  if (match) {
    const [, origin, adj, count, unit] = match;
    const n = Number(count) + (adj === ">" ? 1 : 0);
    if (origin === "string" && n <= 1) return "is required";
    if (adj === "exactly ") return `must have exactly ${n} ${unit}`;
    if (origin === "array" || origin === "set")
      return n <= 1 ? "needs at least one entry" : `needs at least ${n} entries`;
    return `must be at least ${n} ${unit} long`;
  }
  match = /^Too big: expected (\w+) to have (<=|<|exactly )(\d+) (\w+)/.exec(text);
  if (match) {
    const [, origin, adj, count, unit] = match;
    const n = Number(count) - (adj === "<" ? 1 : 0);
    if (origin === "array" || origin === "set") return `can have at most ${n} entries`;
    return `must be at most ${n} ${unit} long`;
  }
  match = /^Too small: expected \w+ to be (>=|>)(-?[\d.]+)/.exec(text);
  if (match) return match[1] === ">" ? `must be more than ${match[2]}` : `must be at least ${match[2]}`;
  match = /^Too big: expected \w+ to be (<=|<)(-?[\d.]+)/.exec(text);
  if (match) return match[1] === "<" ? `must be less than ${match[2]}` : `must be at most ${match[2]}`;
  match = /^Invalid input: expected (\w+), received (\w+)/.exec(text);
  if (match) {
    if (match[2] === "undefined") return "is required";
    const expected: Record<string, string> = {
      string: "text",
      number: "a number",
      int: "a whole number",
      boolean: "yes or no",
      array: "a list",
      object: "a set of fields",
    };
    return `must be ${expected[match[1]!] ?? `a ${match[1]}`}`;
  }
  match = /^Invalid option: expected one of (.+)$/.exec(text);
  if (match) return `must be one of ${match[1]!.split("|").join(", ")}`;
  if (/^Invalid input: expected /.test(text))
    return `must be ${text.slice("Invalid input: expected ".length)}`;
  match = /^Invalid (email|url|uuid|guid|date|datetime|ipv4|ipv6|base64|jwt)\b/i.exec(text);
  if (match) {
    const what: Record<string, string> = {
      email: "email address",
      url: "URL",
      uuid: "id",
      guid: "id",
      date: "date",
      datetime: "date and time",
      ipv4: "IPv4 address",
      ipv6: "IPv6 address",
      base64: "base64 value",
      jwt: "token",
    };
    const noun = what[match[1]!.toLowerCase()]!;
    return `is not a valid ${noun}`;
  }
  match = /^Invalid string: must (start with|end with|include|match pattern) (.+)$/.exec(text);
  if (match)
    return match[1] === "match pattern" ? "is not in the expected format" : `must ${match[1]} ${match[2]}`;
  if (/^Invalid number: must be a multiple of /.test(text)) return text.replace(/^Invalid number: /, "");
  if (/^Invalid (input|value|key|discriminator)/.test(text)) return "is not valid";
  // The server's own rules are written as the end of a sentence already ("must not contain NUL characters").
  return text.replace(/\.$/, "");
}

/** A field's path as words: `primary_email` → "primary email", `members.0.user_id` → "members 1 user id". */
export function fieldInWords(path: readonly string[]): string {
  return path
    .map((part) => (/^\d+$/.test(part) ? String(Number(part) + 1) : part.replace(/[_-]+/g, " ")))
    .join(" ")
    .replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`)
    .trim();
}

/**
 * Whether a text is for developers rather than people: a request line (`POST /users failed with status 400`),
 * a status line, a stack frame, an API path or a raw body. Such text is logged, never shown.
 */
export function looksTechnical(text: string): boolean {
  return (
    /\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \/\S*/.test(text) ||
    /failed with status \d{3}/i.test(text) ||
    /^HTTP\/\d/m.test(text) ||
    /^\s*at .+:\d+:\d+\)?$/m.test(text) ||
    /\/api\/(v1|latest)\//.test(text) ||
    /^\s*[{[<]/.test(text) ||
    /\b(TypeError|ReferenceError|SyntaxError):/.test(text)
  );
}
