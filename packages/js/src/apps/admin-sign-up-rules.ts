/**
 * The admin app's sign-up rule calls (PROTOCOL-EXTRA §6.3). The rules themselves are project config
 * (`auth.signUpRules.<id>`, `auth.signUpRulesDefaultAction`), written with `project.updateConfig`; these two read
 * what they do. The reference SDK has no methods for them (its dashboard calls the routes directly), so the names
 * are ours; the answers are the wire's (snake_case), like `getMetrics`.
 */
import type { WireSignUpRuleActionType, WireSignUpRulesStats } from "@gatehouse/shared";
import { call, type Scope } from "../objects/scope.ts";

export type SignUpAuthMethod = "password" | "otp" | "oauth" | "passkey";
export type SignUpRuleActionType = WireSignUpRuleActionType;
export type SignUpRiskScores = { bot: number; free_trial_abuse: number };

/** A sample sign-up to evaluate the rules against. */
export type SignUpRulesTestInput = {
  /** null: a sign-up without an address (some OAuth accounts). */
  email: string | null;
  authMethod: SignUpAuthMethod;
  oauthProvider?: string | null;
  /** ISO-2; null or absent: derived from the caller's IP (or a development email tag). */
  countryCode?: string | null;
  /** What a bot challenge would have answered; the server assumes `invalid`. */
  turnstileResult?: "ok" | "invalid" | "error";
  /** Scores to use instead of the computed ones. */
  riskScores?: SignUpRiskScores;
};

export type SignUpRuleEvaluationStatus =
  | "matched"
  | "not_matched"
  | "disabled"
  | "missing_condition"
  | "error";

export type SignUpRulesTestResult = {
  context: {
    email: string;
    email_domain: string;
    country_code: string;
    auth_method: SignUpAuthMethod;
    oauth_provider: string;
    turnstile_result: "ok" | "invalid" | "error";
    risk_scores: SignUpRiskScores;
  };
  /** The rules looked at, in evaluation order, up to the one that decided. */
  evaluations: {
    rule_id: string;
    display_name: string;
    enabled: boolean;
    condition: string;
    status: SignUpRuleEvaluationStatus;
    action: { type: SignUpRuleActionType; message?: string };
    error?: string;
  }[];
  outcome: {
    should_allow: boolean;
    decision: "allow" | "reject" | "default-allow" | "default-reject";
    decision_rule_id: string | null;
    restricted_because_of_rule_id: string | null;
  };
};

export type SignUpRulesStats = WireSignUpRulesStats;

export function signUpRuleMethods(scope: Scope) {
  return {
    /** Evaluates the project's sign-up rules against a sample sign-up; nothing is logged. */
    testSignUpRules(input: SignUpRulesTestInput): Promise<SignUpRulesTestResult> {
      return call<SignUpRulesTestResult>(scope, "/internal/sign-up-rules-test", {
        method: "POST",
        body: {
          email: input.email,
          auth_method: input.authMethod,
          oauth_provider: input.oauthProvider ?? null,
          country_code: input.countryCode ?? null,
          ...(input.turnstileResult ? { turnstile_result: input.turnstileResult } : {}),
          ...(input.riskScores ? { risk_scores: input.riskScores } : {}),
        },
      });
    },
    /** How often each rule matched real sign-ups (the last 48 hours by hour, and all time), and which failed. */
    getSignUpRulesStats(): Promise<SignUpRulesStats> {
      return call<SignUpRulesStats>(scope, "/internal/sign-up-rules-stats");
    },
  };
}
