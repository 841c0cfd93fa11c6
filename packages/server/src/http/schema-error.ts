import { knownError } from "@gatehouse/shared";
import type { z } from "zod";

/** Builds the SCHEMA_ERROR text of PROTOCOL.md §2.3: a first line naming the route, then one `- ` line per problem. */
export function schemaError(
  method: string,
  path: string,
  location: string,
  issues: readonly z.core.$ZodIssue[],
) {
  const lines = issues.map((issue) => {
    const where = [location, ...issue.path.map(String)].join(".");
    if (issue.code === "unrecognized_keys")
      return `- ${where} contains unknown properties: ${issue.keys.join(", ")}`;
    if (issue.code === "invalid_type" && issue.input === undefined) return `- ${where} must be defined`;
    return `- ${where}: ${issue.message}`;
  });
  const message = `Request validation failed on ${method} ${path}:\n${lines.join("\n")}`;
  return knownError("SCHEMA_ERROR", { message });
}
