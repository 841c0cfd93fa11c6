/**
 * The owners' side of sign-up rules (PROTOCOL-EXTRA §6.3): `POST /internal/sign-up-rules-test` evaluates the
 * project's rules against a sample sign-up without logging anything, and `GET /internal/sign-up-rules-stats` counts
 * the rules' triggers and failures. The rules themselves are config (`auth.signUpRules`), written through the config API.
 */
import type { WireSignUpRuleFailures } from "@gatehouse/shared";
import { z } from "zod";
import { normalizeEmail } from "../../fields/email.ts";
import { storableText } from "../../fields/text.ts";
import { requestGeo } from "../../http/client-geo.ts";
import { defineRoute } from "../../http/route.ts";
import { wire } from "../../http/wire-schema.ts";
import { countryCodeField } from "../users/fields.ts";
import { createSignUpRuleContext, deriveSignUpCountryCode, SIGN_UP_AUTH_METHODS } from "./context.ts";
import { evaluateSignUpRules } from "./evaluate.ts";
import { signUpRiskScores } from "./risk-scores.ts";
import { SIGN_UP_RULE_ACTIONS } from "./rules.ts";
import { ANALYTICS_HOURS, loadSignUpRulesStats } from "./stats.ts";

const tags = ["Sign-up rules"];
const TURNSTILE_RESULTS = ["ok", "invalid", "error"] as const;
const riskScore = z.number().int().min(0).max(100);
const riskScores = z.strictObject({ bot: riskScore, free_trial_abuse: riskScore });

const testBody = z.strictObject({
  email: storableText(254).nullable(),
  auth_method: z.enum(SIGN_UP_AUTH_METHODS),
  oauth_provider: storableText(100).nullable(),
  country_code: countryCodeField.nullable(),
  turnstile_result: z.enum(TURNSTILE_RESULTS).optional(),
  risk_scores: riskScores.optional(),
});

const testResponse = z.object({
  context: z.object({
    email: z.string(),
    email_domain: z.string(),
    country_code: z.string(),
    auth_method: z.enum(SIGN_UP_AUTH_METHODS),
    oauth_provider: z.string(),
    turnstile_result: z.enum(TURNSTILE_RESULTS),
    risk_scores: riskScores,
  }),
  evaluations: z.array(
    z.object({
      rule_id: z.string(),
      display_name: z.string(),
      enabled: z.boolean(),
      condition: z.string(),
      status: z.enum(["matched", "not_matched", "disabled", "missing_condition", "error"]),
      action: z.object({ type: z.enum(SIGN_UP_RULE_ACTIONS), message: z.string().optional() }),
      error: z.string().optional(),
    }),
  ),
  outcome: z.object({
    should_allow: z.boolean(),
    decision: z.enum(["allow", "reject", "default-allow", "default-reject"]),
    decision_rule_id: z.string().nullable(),
    restricted_because_of_rule_id: z.string().nullable(),
  }),
});

const count = z.number().int().min(0);
const ruleFailures = wire<WireSignUpRuleFailures>()(
  z.object({
    rule_id: z.string(),
    failing: z.boolean(),
    total_count: count,
    all_time_count: count,
    last_failure: z.object({
      occurred_at: z.string(),
      error: z.string(),
      condition: z.string(),
      input: z.object({
        email: z.string(),
        country_code: z.string().nullable(),
        auth_method: z.string(),
        oauth_provider: z.string(),
      }),
    }),
  }),
);
const statsResponse = z.object({
  rule_triggers: z.array(
    z.object({
      rule_id: z.string(),
      total_count: count,
      all_time_count: count,
      hourly_counts: z.array(z.object({ hour: z.string(), count })),
    }),
  ),
  analytics_hours: z.literal(ANALYTICS_HOURS),
  total_triggers: count,
  triggers_by_action: z.object({ allow: count, reject: count, restrict: count, log: count }),
  rule_failures: z.array(ruleFailures),
});

export const signUpRuleRoutes = [
  defineRoute({
    method: "POST",
    path: "/internal/sign-up-rules-test",
    summary: "Evaluate the sign-up rules against a sample sign-up, without logging anything",
    tags,
    access: ["admin"],
    request: { body: testBody },
    response: { body: testResponse },
    handler: async ({ deps, auth, body, clientIp }) => {
      const turnstileResult = body.turnstile_result ?? "invalid";
      const email = body.email === null ? "" : normalizeEmail(body.email);
      const context = createSignUpRuleContext({
        email,
        countryCode:
          body.country_code ??
          deriveSignUpCountryCode({
            ip: clientIp,
            email,
            isDevelopment: deps.env.isDevelopment,
            trustedCountry: requestGeo()?.countryCode ?? null,
          }),
        authMethod: body.auth_method,
        oauthProvider: body.oauth_provider,
        riskScores: body.risk_scores ?? signUpRiskScores(auth.config, { email, turnstileResult }),
      });
      const { evaluations, outcome } = evaluateSignUpRules(auth.config.auth, context);
      return {
        body: {
          context: {
            email: context.email,
            email_domain: context.emailDomain,
            country_code: context.countryCode,
            auth_method: context.authMethod,
            oauth_provider: context.oauthProvider,
            turnstile_result: turnstileResult,
            risk_scores: context.riskScores,
          },
          evaluations: evaluations.map(({ rule, status, error }) => ({
            rule_id: rule.id,
            display_name: rule.displayName ?? "",
            enabled: rule.enabled,
            condition: rule.condition ?? "",
            status,
            action: rule.action,
            ...(error === undefined ? {} : { error }),
          })),
          outcome: {
            should_allow: outcome.shouldAllow,
            decision: outcome.decision,
            decision_rule_id: outcome.decisionRuleId,
            restricted_because_of_rule_id: outcome.restrictedBecauseOfRuleId,
          },
        },
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/internal/sign-up-rules-stats",
    summary:
      "How often each sign-up rule matched (the last 48 hours by hour, and all time), and which rules failed on which input",
    tags,
    access: ["admin"],
    response: { body: statsResponse },
    handler: async ({ deps, auth }) => ({
      body: await loadSignUpRulesStats(deps.db, auth.project.id, auth.config.auth),
    }),
  }),
];
