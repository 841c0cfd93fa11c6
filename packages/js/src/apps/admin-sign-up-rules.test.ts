import { isKnownError } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appsFor, uniqueEmail } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";

let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  gh = await startGatehouse();
  const project = await gh.createProject("Sign-up rules SDK");
  apps = appsFor(gh, project);
  const admin = await apps.admin().getProject();
  await admin.updateConfig({
    "auth.password.allowSignIn": true,
    "auth.signUpRules.block-evil": {
      enabled: true,
      displayName: "Block evil.test",
      priority: 1,
      condition: 'emailDomain == "evil.test"',
      action: { type: "reject", message: "Spam domain" },
    },
    "auth.signUpRules.watch": { enabled: true, condition: "true", action: { type: "log" } },
  });
});
afterAll(() => gh?.close());

describe("AdminApp sign-up rules", () => {
  it("testSignUpRules evaluates a sample sign-up and logs nothing", async () => {
    const admin = apps.admin();
    const result = await admin.testSignUpRules({
      email: "Someone@Evil.test",
      authMethod: "password",
      countryCode: "nl",
      turnstileResult: "ok",
    });
    expect(result.context).toEqual({
      email: "someone@evil.test",
      email_domain: "evil.test",
      country_code: "NL",
      auth_method: "password",
      oauth_provider: "",
      turnstile_result: "ok",
      risk_scores: { bot: 0, free_trial_abuse: 0 },
    });
    expect(result.evaluations.map((e) => [e.rule_id, e.status, e.action.type])).toEqual([
      ["block-evil", "matched", "reject"],
    ]);
    expect(result.outcome).toEqual({
      should_allow: false,
      decision: "reject",
      decision_rule_id: "block-evil",
      restricted_because_of_rule_id: null,
    });

    const scored = await admin.testSignUpRules({
      email: null,
      authMethod: "oauth",
      oauthProvider: "github",
      riskScores: { bot: 7, free_trial_abuse: 8 },
    });
    expect(scored.context).toMatchObject({
      oauth_provider: "github",
      risk_scores: { bot: 7, free_trial_abuse: 8 },
    });
    expect(scored.outcome.decision).toBe("default-allow");

    await gh.gatehouse.deps.activity.flush();
    expect((await admin.getSignUpRulesStats()).total_triggers).toBe(0);
  });

  it("getSignUpRulesStats counts what real sign-ups triggered; a rejected sign-up is SIGN_UP_REJECTED", async () => {
    // Not one of signUpWithCredential's expected Result errors: it throws, as other refusals do.
    const rejected = await apps
      .client()
      .signUpWithCredential({
        email: uniqueEmail("spam").replace("@example.com", "@evil.test"),
        password: "correct horse battery",
        noVerificationCallback: true,
      })
      .catch((error: unknown) => error);
    expect(isKnownError(rejected, "SIGN_UP_REJECTED")).toBe(true);
    const allowed = await apps.client().signUpWithCredential({
      email: uniqueEmail("fine"),
      password: "correct horse battery",
      noVerificationCallback: true,
    });
    expect(allowed.status).toBe("ok");
    await gh.gatehouse.deps.activity.flush();

    const stats = await apps.admin().getSignUpRulesStats();
    expect(stats.analytics_hours).toBe(48);
    expect(stats.total_triggers).toBe(2);
    expect(stats.triggers_by_action).toEqual({ allow: 0, reject: 1, restrict: 0, log: 1 });
    expect(stats.rule_triggers.map((r) => [r.rule_id, r.total_count, r.all_time_count])).toEqual([
      ["block-evil", 1, 1],
      ["watch", 1, 1],
    ]);
    expect(stats.rule_triggers[0]!.hourly_counts).toHaveLength(48);
  });

  it("updateConfig refuses a rule whose condition does not compile; getSignUpRulesStats lists a rule failing on a sign-up", async () => {
    const project = await gh.createProject("Sign-up rules SDK failures");
    const admin = appsFor(gh, project).admin();
    const config = await admin.getProject();
    const refused = await config
      .updateConfig({
        "auth.signUpRules.typo": { enabled: true, condition: "emial == 1", action: { type: "reject" } },
      })
      .catch((error: unknown) => error);
    expect(String((refused as Error).message)).toContain(
      "Sign-up rule 'typo': condition is invalid at column 1: Unknown variable: emial",
    );
    await config.updateConfig({
      "auth.password.allowSignIn": true,
      "auth.signUpRules.numeric": { enabled: true, condition: "int(email) > 1", action: { type: "reject" } },
    });
    const email = uniqueEmail("numeric");
    const allowed = await appsFor(gh, project)
      .client()
      .signUpWithCredential({ email, password: "correct horse battery", noVerificationCallback: true });
    expect(allowed.status).toBe("ok");
    await gh.gatehouse.deps.activity.flush();

    const stats = await admin.getSignUpRulesStats();
    const [failure, ...others] = stats.rule_failures;
    expect(others).toEqual([]);
    expect([
      failure!.rule_id,
      failure!.failing,
      failure!.total_count,
      failure!.last_failure.condition,
    ]).toEqual(["numeric", true, 1, "int(email) > 1"]);
    expect(failure!.last_failure.input).toEqual({
      email,
      country_code: null,
      auth_method: "password",
      oauth_provider: "",
    });
  });

  it("is an admin call", () => {
    expect("testSignUpRules" in apps.server()).toBe(false);
    expect("getSignUpRulesStats" in apps.server()).toBe(false);
  });
});
