/**
 * Rendering: the project, branch and environment overrides applied in that order over the schema defaults, then
 * validated. Problems come back as plain sentences that name the key and say what is wrong with it.
 */
import { emailServerProblems } from "./email-server.ts";
import { type ConfigProblem, formatIssues, problemText } from "./issues.ts";
import { type ConfigOverride, isPlainObject, type JsonObject } from "./json.ts";
import {
  applyOverride,
  normalizeOverride,
  overrideTouchesPath,
  removeKeys,
  validateOverrideShape,
} from "./override.ts";
import { isSystemPermissionId, SYSTEM_PERMISSION_IDS } from "./permissions.ts";
import { type RenderedConfig, renderedConfigSchema } from "./schema.ts";
import { signUpRuleProblems } from "./sign-up-rules.ts";

export const CONFIG_LEVELS = ["project", "branch", "environment"] as const;
export type ConfigLevel = (typeof CONFIG_LEVELS)[number];

/** The stored override of each level; a missing level counts as `{}`. */
export type LevelOverrides = Partial<Record<ConfigLevel, ConfigOverride>>;

export type RenderResult = { ok: true; config: RenderedConfig } | { ok: false; problems: string[] };

/** The levels merged in order, before defaults and validation. Assumes each override passed shape validation. */
export function mergeLevelOverrides(levels: LevelOverrides): JsonObject {
  let merged: JsonObject = {};
  for (const level of CONFIG_LEVELS) merged = applyOverride(merged, levels[level] ?? {});
  return merged;
}

/**
 * Cross-checks the schema cannot express: permission ids used in `containedPermissionIds` and in the default
 * permission sets must be defined (or be system permissions), and default sets must hold permissions of the right
 * scope (team creator and team member: team permissions; sign-up: project permissions).
 */
function permissionProblems(config: RenderedConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const definitions = config.rbac.permissions;
  const systemList = SYSTEM_PERMISSION_IDS.join(", ");
  const undefinedMessage = (id: string) =>
    id.startsWith("$")
      ? `"${id}" is not a system permission (system permissions: ${systemList})`
      : `permission "${id}" is not defined; define it under rbac.permissions or use a system permission (${systemList})`;
  const scopeOf = (id: string) =>
    isSystemPermissionId(id) ? "team" : Object.hasOwn(definitions, id) ? definitions[id]!.scope : undefined;

  for (const [id, definition] of Object.entries(definitions)) {
    for (const containedId of Object.keys(definition.containedPermissionIds)) {
      const path = ["rbac", "permissions", id, "containedPermissionIds", containedId];
      if (scopeOf(containedId) === undefined) {
        problems.push({ path, where: path.join("."), detail: undefinedMessage(containedId) });
      }
    }
  }

  const expectedScopes = { teamCreator: "team", teamMember: "team", signUp: "project" } as const;
  for (const [set, expectedScope] of Object.entries(expectedScopes) as [
    keyof typeof expectedScopes,
    "team" | "project",
  ][]) {
    for (const id of Object.keys(config.rbac.defaultPermissions[set])) {
      const path = ["rbac", "defaultPermissions", set, id];
      const scope = scopeOf(id);
      if (scope === undefined) {
        problems.push({ path, where: path.join("."), detail: undefinedMessage(id) });
      } else if (scope !== expectedScope) {
        problems.push({
          path,
          where: path.join("."),
          detail: `"${id}" is a ${scope} permission, but ${set} default permissions must be ${expectedScope} permissions`,
        });
      }
    }
  }
  return problems;
}

/**
 * Formats problems, noting the highest level whose override sets the key (or, for a missing key, its parent): that
 * is the level whose value ended up in the rendered config.
 */
function withAttribution(
  problems: ConfigProblem[],
  normalized: Partial<Record<ConfigLevel, JsonObject>>,
): string[] {
  const levelsFromTop = [...CONFIG_LEVELS].reverse();
  const sourceOf = (path: readonly string[]) =>
    levelsFromTop.find((level) => {
      const override = normalized[level];
      return (
        override !== undefined && Object.keys(override).length > 0 && overrideTouchesPath(override, path)
      );
    });
  return problems.map((problem) => {
    if (problem.path.length === 0) return problemText(problem);
    const source =
      sourceOf(problem.path) ?? (problem.path.length > 1 ? sourceOf(problem.path.slice(0, -1)) : undefined);
    return problemText(problem, source ? `(from the ${source} override)` : undefined);
  });
}

/**
 * Applies the project, branch and environment overrides (each possibly empty or missing) in that order over the
 * schema defaults and validates the result. On failure, every problem found is listed.
 */
export function renderConfig(levels: LevelOverrides): RenderResult {
  const shapeProblems: string[] = [];
  for (const level of CONFIG_LEVELS) {
    for (const problem of validateOverrideShape(levels[level] ?? {}))
      shapeProblems.push(`${level} override: ${problem}`);
  }
  if (shapeProblems.length > 0) return { ok: false, problems: shapeProblems };

  const normalized: Partial<Record<ConfigLevel, JsonObject>> = {};
  for (const level of CONFIG_LEVELS) normalized[level] = normalizeOverride(levels[level] ?? {});
  const merged = mergeLevelOverrides(normalized);

  const parsed = renderedConfigSchema.safeParse(merged, { reportInput: true });
  if (!parsed.success) {
    return {
      ok: false,
      problems: withAttribution(formatIssues(renderedConfigSchema, parsed.error.issues), normalized),
    };
  }
  const crossProblems = permissionProblems(parsed.data);
  if (crossProblems.length > 0) return { ok: false, problems: withAttribution(crossProblems, normalized) };
  return { ok: true, config: parsed.data };
}

/**
 * Checks that `override`, stored as the override of `level`, would render cleanly together with the other levels'
 * current overrides (any `otherLevels[level]` is ignored), and passes the checks made only on writes
 * (email-server.ts, sign-up-rules.ts). Returns problems; empty means the override is acceptable. With `stored`,
 * the config as it is stored, sign-up rules whose condition is unchanged from it are not checked again.
 */
export function validateLevelOverride(
  level: ConfigLevel,
  override: unknown,
  otherLevels: LevelOverrides,
  stored?: RenderedConfig,
): string[] {
  const shapeProblems = validateOverrideShape(override);
  if (shapeProblems.length > 0) return shapeProblems;
  const levels = { ...otherLevels, [level]: override as ConfigOverride };
  const result = renderConfig(levels);
  if (!result.ok) return result.problems;
  const own = renderConfig(exposingLevel(level, levels));
  if (!own.ok) return own.problems;
  const normalized: Partial<Record<ConfigLevel, JsonObject>> = {};
  for (const each of CONFIG_LEVELS) normalized[each] = normalizeOverride(levels[each] ?? {});
  // A rule's problem names the rule rather than the level it came from: rules are written whole, one at a time.
  return [
    ...withAttribution(emailServerProblems(result.config), normalized),
    ...signUpRuleProblems(result.config, stored).map((problem) => problemText(problem)),
  ];
}

/** The dotted paths of what a normalised override sets: its values that are not objects (null included). */
function setPaths(normalized: JsonObject, prefix = ""): string[] {
  return Object.entries(normalized).flatMap(([key, value]) =>
    isPlainObject(value) ? setPaths(value as JsonObject, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

/**
 * The levels with those above `level` stripped of what `level` sets, so that rendering them checks `level`'s own
 * values even where a higher level sets the same keys (the reference validates each level's override by itself;
 * a render of all three would let a wrong branch value through while the environment hides it).
 */
function exposingLevel(level: ConfigLevel, levels: LevelOverrides): LevelOverrides {
  const own = setPaths(normalizeOverride(levels[level] ?? {}));
  const above = CONFIG_LEVELS.slice(CONFIG_LEVELS.indexOf(level) + 1);
  return {
    ...levels,
    ...Object.fromEntries(above.map((each) => [each, removeKeys(levels[each] ?? {}, own)])),
  };
}
