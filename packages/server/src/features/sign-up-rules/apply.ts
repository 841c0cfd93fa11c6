/**
 * The sign-up rules on a real sign-up: every path that makes an account (password, email code, OAuth, and each of
 * them upgrading an anonymous user) calls `checkSignUpRules` before it writes anything, and creating an anonymous
 * user does not. A rejection throws SIGN_UP_REJECTED (403), so the caller's user, channel and team are never
 * written; otherwise the caller stores what comes back on the user (`signUpUserFields` for a new user; the upgrade
 * takes the outcome as it is).
 *
 * Every matching rule records a `$sign-up-rule-trigger` activity event (PROTOCOL-EXTRA §4.2), whatever the
 * sign-up's fate afterwards, as the reference logs at evaluation. The rejection's message is the generic one: the
 * rule's own message is for the owner, and telling the person signing up which rule caught them would help them
 * around it (the reference does the same).
 *
 * A condition that fails to run (an evaluation error, as `int(email) > 1` on an address that is not a number) counts
 * as no match, as on the reference, and records a `$sign-up-rule-error` event with the error, the condition as it
 * was and the sign-up's input that broke it (address, country, method), so the owners' stats (stats.ts) show the
 * rule as failing with that input. Conditions are checked when saved (config/sign-up-rules.ts), so these are errors
 * only the input can cause, or rules stored before the check.
 */
import { knownError } from "@gatehouse/shared";
import type { RenderedConfig } from "../../config/index.ts";
import type { AppDeps } from "../../deps.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { requestGeo } from "../../http/client-geo.ts";
import type { ActivityEvent } from "../activity/analytics.ts";
import {
  createSignUpRuleContext,
  deriveSignUpCountryCode,
  type SignUpAuthMethod,
  type SignUpRuleContext,
} from "./context.ts";
import { evaluateSignUpRules, matchedRules, type SignUpRuleEvaluation } from "./evaluate.ts";
import { type SignUpRiskScores, signUpRiskScores } from "./risk-scores.ts";
import type { SignUpRule } from "./rules.ts";

export const SIGN_UP_RULE_TRIGGER_EVENT = "$sign-up-rule-trigger";
export const SIGN_UP_RULE_ERROR_EVENT = "$sign-up-rule-error";
export const SIGN_UP_REJECTED_MESSAGE = "Your sign up was rejected by an administrator's sign-up rule.";

export type SignUpAttempt = {
  projectId: string;
  config: RenderedConfig;
  /** The address the account gets, or null (an OAuth account without one). */
  email: string | null;
  authMethod: SignUpAuthMethod;
  /** The provider's type for OAuth sign-ups. */
  oauthProvider?: string | null;
  /** The caller's IP, for the country. */
  ip: string | null;
  /** The anonymous user this sign-up upgrades: their country, when known, is kept. */
  anonymousUser?: { id: string; countryCode: string | null } | null;
};

/** What the rules decided about an allowed sign-up, for the account's row. */
export type SignUpRulesVerdict = {
  countryCode: string | null;
  riskScores: { sign_up: SignUpRiskScores };
  /** Set when a `restrict` rule matched: the note for `restricted_by_admin_private_details`. */
  restrictionDetails: string | null;
};

/** The private note a restricting rule leaves on the user. */
export function restrictionDetailsFor(rule: Pick<SignUpRule, "id" | "displayName">): string {
  return `Restricted by sign-up rule: ${rule.id}${rule.displayName ? ` (${rule.displayName})` : ""}`;
}

export function signUpRuleTriggerEvent(
  projectId: string,
  rule: SignUpRule,
  context: SignUpRuleContext,
  userId: string | null,
): ActivityEvent {
  return {
    projectId,
    type: SIGN_UP_RULE_TRIGGER_EVENT,
    data: {
      rule_id: rule.id,
      action: rule.action.type,
      email: context.email,
      auth_method: context.authMethod,
      oauth_provider: context.oauthProvider,
    },
    userId,
    countryCode: context.countryCode || null,
  };
}

/** The event of a rule whose condition failed on this sign-up: what broke, and the input it broke on. */
export function signUpRuleErrorEvent(
  projectId: string,
  evaluation: SignUpRuleEvaluation,
  context: SignUpRuleContext,
  userId: string | null,
): ActivityEvent {
  return {
    projectId,
    type: SIGN_UP_RULE_ERROR_EVENT,
    data: {
      rule_id: evaluation.rule.id,
      action: evaluation.rule.action.type,
      condition: evaluation.rule.condition ?? "",
      error: evaluation.error ?? "",
      email: context.email,
      auth_method: context.authMethod,
      oauth_provider: context.oauthProvider,
    },
    userId,
    countryCode: context.countryCode || null,
  };
}

/** Evaluates the project's rules for a sign-up: throws SIGN_UP_REJECTED, or says what to store on the account. */
export function checkSignUpRules(
  deps: Pick<AppDeps, "env" | "activity">,
  attempt: SignUpAttempt,
): SignUpRulesVerdict {
  const countryCode =
    attempt.anonymousUser?.countryCode ??
    deriveSignUpCountryCode({
      ip: attempt.ip,
      email: attempt.email,
      isDevelopment: deps.env.isDevelopment,
      trustedCountry: requestGeo()?.countryCode ?? null,
    });
  const context = createSignUpRuleContext({
    email: attempt.email,
    countryCode,
    authMethod: attempt.authMethod,
    oauthProvider: attempt.oauthProvider ?? null,
    riskScores: signUpRiskScores(attempt.config, {
      email: attempt.email ? normalizeEmail(attempt.email) : "",
      turnstileResult: "not_run",
    }),
  });

  const rules = attempt.config.auth;
  const result = evaluateSignUpRules(rules, context);
  const userId = attempt.anonymousUser?.id ?? null;
  for (const evaluation of result.evaluations) {
    if (evaluation.status === "error") {
      deps.activity.record(signUpRuleErrorEvent(attempt.projectId, evaluation, context, userId));
    }
  }
  for (const rule of matchedRules(result)) {
    deps.activity.record(signUpRuleTriggerEvent(attempt.projectId, rule, context, userId));
  }
  if (!result.outcome.shouldAllow)
    throw knownError("SIGN_UP_REJECTED", { message: SIGN_UP_REJECTED_MESSAGE });

  const restrictingRule = result.evaluations.find(
    (evaluation) => evaluation.rule.id === result.outcome.restrictedBecauseOfRuleId,
  )?.rule;
  return {
    countryCode: context.countryCode || null,
    riskScores: { sign_up: context.riskScores },
    restrictionDetails: restrictingRule ? restrictionDetailsFor(restrictingRule) : null,
  };
}

/** The verdict as the fields of a new user (users/service.ts `NewUser`). */
export function signUpUserFields(verdict: SignUpRulesVerdict) {
  return {
    countryCode: verdict.countryCode,
    riskScores: verdict.riskScores,
    ...(verdict.restrictionDetails === null
      ? {}
      : { restrictedByAdmin: true, restrictedByAdminPrivateDetails: verdict.restrictionDetails }),
  };
}
