/**
 * What the schema cannot say about `auth.signUpRules`, checked when a config is written (render.ts
 * `validateLevelOverride`): every rule's condition must compile and type-check against the rule context, keep to
 * the pattern and cost limits, and so run (features/sign-up-rules/cel.ts). A refused condition is named by its rule
 * and says where and why, e.g. `Sign-up rule 'x': condition is invalid at column 1: Unknown variable: emial`.
 * Stored configs are not re-checked when read: a rule saved before this check still renders, and its condition is
 * then an evaluation error, which counts as no match and is recorded (features/sign-up-rules/apply.ts). Given the
 * `stored` config, a write skips the rules whose condition it leaves as stored, so such a rule does not block an
 * unrelated write; any changed condition is checked, even one that fails the same way as the old.
 */
import { conditionProblem, describeConditionProblem } from "../features/sign-up-rules/cel.ts";
import type { ConfigProblem } from "./issues.ts";
import type { RenderedConfig } from "./schema.ts";

export function signUpRuleProblems(config: RenderedConfig, stored?: RenderedConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [id, entry] of Object.entries(config.auth.signUpRules)) {
    if (typeof entry !== "object" || entry === null || !("condition" in entry)) continue;
    const condition: unknown = entry.condition;
    if (stored && storedCondition(stored, id) === condition) continue;
    const at = (detail: string): ConfigProblem => ({
      path: ["auth", "signUpRules", id, "condition"],
      where: `Sign-up rule '${id}'`,
      detail,
    });
    if (typeof condition !== "string") {
      problems.push(at("condition must be a CEL expression in a string"));
      continue;
    }
    if (condition.trim() === "") continue;
    const problem = conditionProblem(condition);
    if (problem) {
      const where = problem.line === null ? `: ${problem.reason}` : ` ${describeConditionProblem(problem)}`;
      problems.push(at(`condition is invalid${where}`));
    }
  }
  return problems;
}

function storedCondition(stored: RenderedConfig, id: string): unknown {
  const entry: unknown = Object.hasOwn(stored.auth.signUpRules, id) ? stored.auth.signUpRules[id] : undefined;
  return typeof entry === "object" && entry !== null && "condition" in entry ? entry.condition : undefined;
}
