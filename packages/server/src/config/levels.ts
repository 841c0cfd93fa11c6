/**
 * Which keys each override level may hold (PROTOCOL-EXTRA.md §8.3). The branch level is what a repository pushes and
 * every environment shares, so secrets and per-deployment settings (domains, the email server, OAuth credentials,
 * test-mode payments) live at the environment level only; the project level alone says where the config comes from
 * (`sourceOfTruth`) and holds `project.*`.
 */
import { isPlainObject } from "./json.ts";

export type OverrideLevel = "project" | "branch" | "environment";

const PROJECT_ONLY: readonly (readonly string[])[] = [["sourceOfTruth"], ["project"]];
const ENVIRONMENT_ONLY: readonly (readonly string[])[] = [
  ["domains", "allowLocalhost"],
  ["domains", "trustedDomains"],
  ["emails", "server"],
  ["payments", "testMode"],
  ["analytics"],
  ["customDashboards"],
];
/** What a branch may say about an OAuth provider; its credentials and the rest are the environment's. */
const BRANCH_PROVIDER_KEYS = new Set(["type", "allowSignIn", "allowConnectedAccounts"]);

const startsWith = (path: readonly string[], prefix: readonly string[]) =>
  prefix.every((segment, index) => path[index] === segment);

/** The index of the first segment of `path` that `level` does not have, or -1 when the level may hold it. */
function refusedSegment(level: OverrideLevel, path: readonly string[]): number {
  if (level === "project") return -1;
  for (const prefix of PROJECT_ONLY) if (startsWith(path, prefix)) return prefix.length - 1;
  if (level === "environment") return -1;
  for (const prefix of ENVIRONMENT_ONLY) if (startsWith(path, prefix)) return prefix.length - 1;
  if (
    startsWith(path, ["auth", "oauth", "providers"]) &&
    path.length > 4 &&
    !BRANCH_PROVIDER_KEYS.has(path[4]!)
  ) {
    return 4;
  }
  return -1;
}

/**
 * The reference's text for the first key `override` may not hold at `level`, or null. A key spelled with dots is
 * named whole (`The key "domains.allowLocalhost" is not valid …`); a key nested in an object is named with the
 * object's path (`domains contains unknown properties: allowLocalhost`).
 */
export function levelKeyProblem(level: OverrideLevel, override: Record<string, unknown>): string | null {
  const visit = (object: Record<string, unknown>, parent: string[]): string | null => {
    const nested: string[] = [];
    for (const [key, value] of Object.entries(object)) {
      if (value === undefined) continue;
      const path = [...parent, ...key.split(".")];
      const refused = refusedSegment(level, path);
      if (refused >= 0) {
        if (parent.length > 0 && !key.includes(".")) {
          nested.push(key);
          continue;
        }
        const found = path.slice(0, refused + 1).join(".");
        return `The key "${path.join(".")}" is not valid (nested object not found in schema: "${found}").`;
      }
      if (isPlainObject(value)) {
        const inner = visit(value as Record<string, unknown>, path);
        if (inner) return inner;
      }
    }
    return nested.length > 0 ? `${parent.join(".")} contains unknown properties: ${nested.join(", ")}` : null;
  };
  return visit(override, []);
}
