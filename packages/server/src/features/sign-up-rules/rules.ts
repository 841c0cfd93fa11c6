/**
 * The project's sign-up rules as the evaluator reads them (PROTOCOL-EXTRA §6.3): `auth.signUpRules.<ruleId>` and
 * `auth.signUpRulesDefaultAction`, in evaluation order.
 *
 * The config schema stores rule entries as free JSON (config/schema.ts), so a rule written by another tool, or half
 * edited, must not break sign-ups: each field falls back to the reference's default when it is missing or of the
 * wrong type (enabled false, priority 0, action allow), and a rule without a usable condition is reported as
 * `missing_condition` rather than refused.
 */
import type { RenderedConfig } from "../../config/index.ts";

export const SIGN_UP_RULE_ACTIONS = ["allow", "reject", "restrict", "log"] as const;
export type SignUpRuleActionType = (typeof SIGN_UP_RULE_ACTIONS)[number];

export type SignUpRule = {
  id: string;
  enabled: boolean;
  displayName: string | null;
  priority: number;
  /** The CEL expression; null when absent or blank. */
  condition: string | null;
  action: { type: SignUpRuleActionType; message?: string };
};

export type SignUpRulesConfig = Pick<RenderedConfig["auth"], "signUpRules" | "signUpRulesDefaultAction">;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readAction(value: unknown): SignUpRule["action"] {
  if (!isRecord(value)) return { type: "allow" };
  const type = (SIGN_UP_RULE_ACTIONS as readonly unknown[]).includes(value.type)
    ? (value.type as SignUpRuleActionType)
    : "allow";
  return typeof value.message === "string" ? { type, message: value.message } : { type };
}

/** One stored entry as a rule, with the reference's defaults for whatever is missing or malformed. */
export function readSignUpRule(id: string, value: unknown): SignUpRule {
  const entry = isRecord(value) ? value : {};
  const priority = entry.priority;
  const condition = typeof entry.condition === "string" ? entry.condition.trim() : "";
  return {
    id,
    enabled: entry.enabled === true,
    displayName: typeof entry.displayName === "string" ? entry.displayName : null,
    priority: typeof priority === "number" && Number.isSafeInteger(priority) && priority >= 0 ? priority : 0,
    condition: condition === "" ? null : condition,
    action: readAction(entry.action),
  };
}

/** Code-unit order, so the order never depends on the server's locale. */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every rule of the config in evaluation order: highest priority first, then by rule id. */
export function orderedSignUpRules(config: SignUpRulesConfig): SignUpRule[] {
  return Object.entries(config.signUpRules ?? {})
    .map(([id, value]) => readSignUpRule(id, value))
    .sort((a, b) => b.priority - a.priority || compareIds(a.id, b.id));
}
