import { knownError } from "@gatehouse/shared";
import type { z } from "zod";
import { StatusError } from "./status-error.ts";

/** One problem of a request and where it was found (`params`, `query`, `body`, …). */
export type LocatedIssue = { location: string; issue: z.core.$ZodIssue };

/** Builds the SCHEMA_ERROR text of PROTOCOL.md §2.3: a first line naming the route, then one `- ` line per problem. */
export function schemaError(
  method: string,
  path: string,
  location: string,
  issues: readonly z.core.$ZodIssue[],
) {
  return schemaErrorAt(
    method,
    path,
    issues.map((issue) => ({ location, issue })),
  );
}

/** SCHEMA_ERROR for problems in several parts of a request, listed in the order given. */
export function schemaErrorAt(method: string, path: string, problems: readonly LocatedIssue[]) {
  const lines = problems.map(({ location, issue }) => {
    const where = [location, ...issue.path.map(String)].join(".");
    if (issue.code === "unrecognized_keys")
      return `- ${where} contains unknown properties: ${issue.keys.join(", ")}`;
    if (issue.code === "invalid_type" && issue.input === undefined) return `- ${where} must be defined`;
    return `- ${where}: ${issue.message}`;
  });
  const message = `Request validation failed on ${method} ${path}:\n${lines.join("\n")}`;
  return knownError("SCHEMA_ERROR", { message });
}

/**
 * A refinement whose failure the reference answers as a plain-text 400 from its handler rather than a SCHEMA_ERROR
 * (PROTOCOL-EXTRA §8.7: "Invalid profile image URL", a password next to a hash, an unsupported hash). Pass it as a
 * refinement's params (`.refine(check, plainTextIssue(text))`, or spread into `ctx.addIssue`); the router answers
 * it with `text` when nothing else about the request is wrong, since the reference's handler runs only after its
 * schema passed.
 */
export function plainTextIssue(text: string) {
  return { message: text, params: { plainText: true } };
}

function isPlainTextIssue(issue: z.core.$ZodIssue): boolean {
  return issue.code === "custom" && (issue.params as { plainText?: unknown } | undefined)?.plainText === true;
}

/**
 * The answer to a request's problems, gathered over its parts in the reference's order (path parameters first):
 * SCHEMA_ERROR listing every schema problem, else the plain 400 of the first plain-text check.
 */
export function requestProblemsError(method: string, path: string, problems: readonly LocatedIssue[]) {
  const schemaProblems = problems.filter(({ issue }) => !isPlainTextIssue(issue));
  if (schemaProblems.length > 0) return schemaErrorAt(method, path, schemaProblems);
  return new StatusError(400, problems[0]!.issue.message);
}
