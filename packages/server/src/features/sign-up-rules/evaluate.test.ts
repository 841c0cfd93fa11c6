/**
 * The evaluator on its own (PROTOCOL-EXTRA §6.3): order, what decides, what only marks or logs, skipped rules,
 * conditions that fail, the default action, and the CEL context. Pure functions, no server.
 */
import { describe, expect, it } from "vitest";
import { conditionProblem, evaluateCondition, unsafePatternReason } from "./cel.ts";
import { createSignUpRuleContext, deriveSignUpCountryCode, type SignUpRuleContext } from "./context.ts";
import { evaluateSignUpRules, matchedRules } from "./evaluate.ts";
import { computeSignUpRiskScores } from "./risk-scores.ts";
import { orderedSignUpRules, readSignUpRule, type SignUpRulesConfig } from "./rules.ts";

function context(overrides: Partial<Parameters<typeof createSignUpRuleContext>[0]> = {}): SignUpRuleContext {
  return createSignUpRuleContext({
    email: "Jane.Doe@Example.COM",
    countryCode: "de",
    authMethod: "password",
    oauthProvider: null,
    riskScores: { bot: 12, free_trial_abuse: 70 },
    ...overrides,
  });
}

function rules(
  entries: Record<string, unknown>,
  defaultAction: "allow" | "reject" = "allow",
): SignUpRulesConfig {
  return { signUpRules: entries, signUpRulesDefaultAction: defaultAction };
}

const rule = (priority: number, condition: string | undefined, type: string, extra = {}) => ({
  enabled: true,
  priority,
  ...(condition === undefined ? {} : { condition }),
  action: { type },
  ...extra,
});

const statuses = (result: ReturnType<typeof evaluateSignUpRules>) =>
  result.evaluations.map((evaluation) => [evaluation.rule.id, evaluation.status]);

describe("order", () => {
  it("runs rules by descending priority, then by rule id in code-unit order", () => {
    const config = rules({
      b: rule(1, "true", "log"),
      a: rule(1, "true", "log"),
      Z: rule(1, "true", "log"),
      c: rule(5, "true", "log"),
      d: rule(0, "true", "log"),
    });
    expect(orderedSignUpRules(config).map((r) => r.id)).toEqual(["c", "Z", "a", "b", "d"]);
    expect(matchedRules(evaluateSignUpRules(config, context())).map((r) => r.id)).toEqual([
      "c",
      "Z",
      "a",
      "b",
      "d",
    ]);
  });

  it("lets the first matching allow or reject decide and looks no further", () => {
    const result = evaluateSignUpRules(
      rules({
        "1-reject": rule(3, 'emailDomain == "example.com"', "reject"),
        "2-allow": rule(2, "true", "allow"),
        "3-log": rule(1, "true", "log"),
      }),
      context(),
    );
    expect(result.outcome).toEqual({
      shouldAllow: false,
      decision: "reject",
      decisionRuleId: "1-reject",
      restrictedBecauseOfRuleId: null,
    });
    expect(statuses(result)).toEqual([["1-reject", "matched"]]);
  });

  it("lets a higher allow win over a lower reject, and a non-matching rule decide nothing", () => {
    const result = evaluateSignUpRules(
      rules(
        {
          vip: rule(9, 'email.endsWith("@example.com")', "allow"),
          other: rule(9, 'countryCode == "US"', "reject"),
          all: rule(1, "true", "reject"),
        },
        "reject",
      ),
      context(),
    );
    expect(statuses(result)).toEqual([
      ["other", "not_matched"],
      ["vip", "matched"],
    ]);
    expect(result.outcome).toMatchObject({ shouldAllow: true, decision: "allow", decisionRuleId: "vip" });
  });
});

describe("restrict and log", () => {
  it("marks the user restricted by the first restricting rule and keeps evaluating", () => {
    const result = evaluateSignUpRules(
      rules({
        "restrict-a": rule(5, "riskScores.free_trial_abuse >= 50", "restrict"),
        "restrict-b": rule(4, "true", "restrict"),
        "allow-all": rule(3, "true", "allow"),
        never: rule(2, "true", "reject"),
      }),
      context(),
    );
    expect(statuses(result)).toEqual([
      ["restrict-a", "matched"],
      ["restrict-b", "matched"],
      ["allow-all", "matched"],
    ]);
    expect(result.outcome).toEqual({
      shouldAllow: true,
      decision: "allow",
      decisionRuleId: "allow-all",
      restrictedBecauseOfRuleId: "restrict-a",
    });
  });

  it("keeps the restriction when the default action decides", () => {
    const result = evaluateSignUpRules(rules({ r: rule(0, "true", "restrict") }), context());
    expect(result.outcome).toEqual({
      shouldAllow: true,
      decision: "default-allow",
      decisionRuleId: null,
      restrictedBecauseOfRuleId: "r",
    });
  });

  it("only records a log rule's match", () => {
    const result = evaluateSignUpRules(
      rules({ watch: rule(0, 'authMethod == "password"', "log") }),
      context(),
    );
    expect(statuses(result)).toEqual([["watch", "matched"]]);
    expect(matchedRules(result).map((r) => r.id)).toEqual(["watch"]);
    expect(result.outcome).toEqual({
      shouldAllow: true,
      decision: "default-allow",
      decisionRuleId: null,
      restrictedBecauseOfRuleId: null,
    });
  });
});

describe("skipped and failing rules", () => {
  it("skips disabled rules and rules without a condition", () => {
    const result = evaluateSignUpRules(
      rules({
        off: { ...rule(9, "true", "reject"), enabled: false },
        "no-enabled-flag": { priority: 8, condition: "true", action: { type: "reject" } },
        empty: rule(7, "   ", "reject"),
        missing: rule(6, undefined, "reject"),
      }),
      context(),
    );
    expect(statuses(result)).toEqual([
      ["off", "disabled"],
      ["no-enabled-flag", "disabled"],
      ["empty", "missing_condition"],
      ["missing", "missing_condition"],
    ]);
    expect(result.outcome.decision).toBe("default-allow");
  });

  it.each([
    ["a syntax error", 'emailDomain == "x'],
    ["a type error", "email == 1"],
    ["an unknown variable", 'phone == "1"'],
    ["a non-boolean result", "email"],
    ["a run-time error", "1 / (riskScores.bot - 12) == 1"],
    ["a risky pattern", 'email.matches("(a+)+$")'],
    ["a pattern that is not a literal", "email.matches(emailDomain)"],
  ])("counts %s as no match and goes on", (_, condition) => {
    const result = evaluateSignUpRules(
      rules({ broken: rule(2, condition, "reject"), next: rule(1, "true", "log") }, "allow"),
      context(),
    );
    expect(statuses(result)).toEqual([
      ["broken", "error"],
      ["next", "matched"],
    ]);
    expect(result.evaluations[0]!.error).toEqual(expect.any(String));
    expect(result.outcome).toMatchObject({ shouldAllow: true, decision: "default-allow" });
  });

  it("reads malformed entries with the defaults instead of failing", () => {
    expect(readSignUpRule("x", "not an object")).toEqual({
      id: "x",
      enabled: false,
      displayName: null,
      priority: 0,
      condition: null,
      action: { type: "allow" },
    });
    expect(
      readSignUpRule("y", {
        enabled: true,
        priority: -3,
        displayName: 5,
        condition: " true ",
        action: { type: "explode", message: "m" },
      }),
    ).toEqual({
      id: "y",
      enabled: true,
      displayName: null,
      priority: 0,
      condition: "true",
      action: { type: "allow", message: "m" },
    });
  });
});

describe("the default action", () => {
  it("rejects when nothing decides and the default is reject", () => {
    const result = evaluateSignUpRules(
      rules({ other: rule(1, 'countryCode == "US"', "allow") }, "reject"),
      context(),
    );
    expect(result.outcome).toEqual({
      shouldAllow: false,
      decision: "default-reject",
      decisionRuleId: null,
      restrictedBecauseOfRuleId: null,
    });
  });

  it("allows with no rules at all", () => {
    expect(evaluateSignUpRules(rules({}), context())).toEqual({
      evaluations: [],
      outcome: {
        shouldAllow: true,
        decision: "default-allow",
        decisionRuleId: null,
        restrictedBecauseOfRuleId: null,
      },
    });
  });
});

describe("the CEL context", () => {
  it("normalizes the email, splits its domain and upper-cases the country", () => {
    expect(context()).toEqual({
      email: "jane.doe@example.com",
      emailDomain: "example.com",
      countryCode: "DE",
      authMethod: "password",
      oauthProvider: "",
      riskScores: { bot: 12, free_trial_abuse: 70 },
    });
    expect(
      context({ email: null, countryCode: "Germany", authMethod: "oauth", oauthProvider: "github" }),
    ).toMatchObject({
      email: "",
      emailDomain: "",
      countryCode: "",
      oauthProvider: "github",
    });
  });

  it.each([
    ['email == "jane.doe@example.com"', true],
    ['email.contains("doe@")', true],
    ['email.startsWith("jane")', true],
    ['emailDomain.endsWith(".com")', true],
    ['email.matches("^[a-z.]+@example\\\\.(com|org)$")', true],
    ['countryCode in ["US", "CA"]', false],
    ['countryCode in ["DE", "AT"] && authMethod == "password"', true],
    ['!(oauthProvider == "") || authMethod != "oauth"', true],
    ["riskScores.bot < 20 && riskScores.free_trial_abuse >= 70", true],
    ["riskScores.freeTrialAbuse == 70", true],
    ["riskScores.bot > 12.5", false],
  ])("%s is %s", (condition, expected) => {
    expect(evaluateCondition(condition, context())).toEqual({ matched: expected });
  });

  it("reports a condition's problem for editors, and none for a good one", () => {
    expect(conditionProblem('emailDomain == "example.com"')).toBeNull();
    expect(conditionProblem("emailDomain ==")).toEqual({ reason: expect.any(String), line: 1, column: 15 });
    expect(conditionProblem("x".repeat(5000))).toEqual({
      reason: expect.stringMatching(/longer than/),
      line: null,
    });
  });
});

describe("the cost limit", () => {
  const long = context({ email: `${"a".repeat(240)}@example.com` });

  it.each([
    ['email.split("").exists(c, c == "+")', false],
    ['["a.test", "b.test", "example.com"].exists(d, emailDomain.endsWith(d))', true],
    ['email.split("").filter(c, c == "a").size() > 200', true],
  ])("runs a loop over one text or list: %s", (condition, expected) => {
    expect(conditionProblem(condition)).toBeNull();
    expect(evaluateCondition(condition, long)).toEqual({ matched: expected });
  });

  it.each([
    'email.split("").all(a, email.split("").all(b, a != b))',
    'email.split("").map(c, email).join(email) != ""',
    // Each name doubles the one before: 512 characters times 2 ** 8.
    "cel.bind(a, email + email, cel.bind(b, a + a, cel.bind(c, b + b, cel.bind(d, c + c, cel.bind(e, d + d, cel.bind(f, e + e, cel.bind(g, f + f, cel.bind(h, g + g, size(h) > 0))))))))",
  ])("refuses, without running it, a condition whose worst case is over the limit: %s", (condition) => {
    expect(conditionProblem(condition)?.reason).toMatch(/could (take more than|build a value of more than)/);
    expect(evaluateCondition(condition, long)).toEqual({ error: expect.stringMatching(/could/) });
  });

  it("refuses to run on an input longer than the limit assumes", () => {
    const overlong = context({ email: `${"a".repeat(600)}@example.com` });
    expect(evaluateCondition("true", overlong)).toEqual({
      error: expect.stringMatching(/email is longer than/),
    });
  });
});

describe("matches() patterns", () => {
  it.each(["^[a-z0-9._%+-]+@(mailinator|yopmail)\\.com$", "\\d{5,}", "(ab)+", "^[^@]+\\+[^@]+@"])(
    "runs %s",
    (pattern) => {
      expect(unsafePatternReason(pattern)).toBeNull();
    },
  );

  it.each([
    ["(a+)+$", /repeated group/],
    ["(a|aa)*b", /repeated group/],
    ["((ab)*c){2,}", /repeated group/],
    ["((x)\\2)+", /repeated group/],
    ["(?<=a)b", /lookbehind/],
    [".*a.*b.*c.*d", /unbounded/],
    ["a{1,1000}b", null],
    ["[", /not a valid/],
    ["a".repeat(201), /longer than/],
  ])("screens %s", (pattern, reason) => {
    const result = unsafePatternReason(pattern);
    if (reason === null) expect(result).toBeNull();
    else expect(result).toMatch(reason);
  });
});

describe("country and risk scores", () => {
  it("takes the country from a development email tag, else from the IP", () => {
    expect(deriveSignUpCountryCode({ ip: null, email: "a+ca@example.com", isDevelopment: true })).toBe("CA");
    expect(deriveSignUpCountryCode({ ip: null, email: "a+ca@example.com", isDevelopment: false })).toBeNull();
    expect(
      deriveSignUpCountryCode({ ip: "127.0.0.1", email: "a@example.com", isDevelopment: true }),
    ).toBeNull();
    expect(deriveSignUpCountryCode({ ip: "81.2.69.142", email: null, isDevelopment: false })).toMatch(
      /^[A-Z]{2}$/,
    );
  });

  it("scores each documented signal, capped at 100", () => {
    const score = (email: string, turnstileResult: "ok" | "invalid" | "error" | "not_run" = "not_run") =>
      computeSignUpRiskScores({ email, turnstileResult });
    expect(score("jane@example.com")).toEqual({ bot: 0, free_trial_abuse: 0 });
    expect(score("jane@example.com", "invalid")).toEqual({ bot: 40, free_trial_abuse: 0 });
    expect(score("jane@example.com", "error")).toEqual({ bot: 10, free_trial_abuse: 0 });
    expect(score("jane@mailinator.com")).toEqual({ bot: 30, free_trial_abuse: 50 });
    expect(score("jdoe83920471@example.com")).toEqual({ bot: 20, free_trial_abuse: 0 });
    expect(score("jane+trial3@example.com")).toEqual({ bot: 0, free_trial_abuse: 20 });
    expect(score("j.a.n.e@gmail.com")).toEqual({ bot: 0, free_trial_abuse: 20 });
    expect(score("")).toEqual({ bot: 10, free_trial_abuse: 0 });
    expect(score("x1234567+a@yopmail.com", "invalid")).toEqual({ bot: 90, free_trial_abuse: 70 });
    expect(score("j.a+1@mailinator.com")).toEqual({ bot: 30, free_trial_abuse: 70 });
  });
});
