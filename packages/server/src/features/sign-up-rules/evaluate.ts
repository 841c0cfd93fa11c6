/**
 * Evaluating the sign-up rules (PROTOCOL-EXTRA §6.3). Pure: no database, no logging. Real sign-ups log a trigger
 * per match from what this returns (apply.ts); the admin tester returns the evaluations as they are (routes.ts).
 *
 * In order (rules.ts): a disabled rule or one without a condition is skipped; the first matching `allow` or
 * `reject` decides and ends the evaluation; a matching `restrict` marks the user restricted (the first such rule
 * is the one remembered) and evaluation goes on; `log` only records. When nothing decides, the project's default
 * action does. A condition that fails to parse or run, or is not a boolean, is no match (status `error`).
 */
import { evaluateCondition } from "./cel.ts";
import type { SignUpRuleContext } from "./context.ts";
import { orderedSignUpRules, type SignUpRule, type SignUpRulesConfig } from "./rules.ts";

export type SignUpRuleStatus = "matched" | "not_matched" | "disabled" | "missing_condition" | "error";

export type SignUpRuleEvaluation = {
  rule: SignUpRule;
  status: SignUpRuleStatus;
  error?: string;
};

export type SignUpDecision = "allow" | "reject" | "default-allow" | "default-reject";

export type SignUpRulesOutcome = {
  shouldAllow: boolean;
  decision: SignUpDecision;
  decisionRuleId: string | null;
  restrictedBecauseOfRuleId: string | null;
};

export type SignUpRulesResult = {
  /** Every rule looked at, in order, up to and including the one that decided. */
  evaluations: SignUpRuleEvaluation[];
  outcome: SignUpRulesOutcome;
};

function evaluateRule(rule: SignUpRule, context: SignUpRuleContext): SignUpRuleEvaluation {
  if (!rule.enabled) return { rule, status: "disabled" };
  if (rule.condition === null) return { rule, status: "missing_condition" };
  const result = evaluateCondition(rule.condition, context);
  if ("error" in result) return { rule, status: "error", error: result.error };
  return { rule, status: result.matched ? "matched" : "not_matched" };
}

export function evaluateSignUpRules(
  config: SignUpRulesConfig,
  context: SignUpRuleContext,
): SignUpRulesResult {
  const evaluations: SignUpRuleEvaluation[] = [];
  let restrictedBecauseOfRuleId: string | null = null;
  for (const rule of orderedSignUpRules(config)) {
    const evaluation = evaluateRule(rule, context);
    evaluations.push(evaluation);
    if (evaluation.status !== "matched") continue;
    const type = rule.action.type;
    if (type === "restrict") restrictedBecauseOfRuleId ??= rule.id;
    if (type === "allow" || type === "reject") {
      return {
        evaluations,
        outcome: {
          shouldAllow: type === "allow",
          decision: type,
          decisionRuleId: rule.id,
          restrictedBecauseOfRuleId,
        },
      };
    }
  }
  const shouldAllow = config.signUpRulesDefaultAction !== "reject";
  return {
    evaluations,
    outcome: {
      shouldAllow,
      decision: shouldAllow ? "default-allow" : "default-reject",
      decisionRuleId: null,
      restrictedBecauseOfRuleId,
    },
  };
}

/** The matched rules of a result, in order: one trigger each. */
export function matchedRules(result: SignUpRulesResult): SignUpRule[] {
  return result.evaluations.filter((evaluation) => evaluation.status === "matched").map((e) => e.rule);
}
