/**
 * `POST /internal/sign-up-rules-test` and `GET /internal/sign-up-rules-stats` (PROTOCOL-EXTRA §6.3) against the real
 * server: the documented shapes, how the context is derived, that testing logs nothing, bad input, and counts from
 * real sign-ups' trigger events.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUuid } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { events } from "../events/schema.ts";
import { configureRules, triggerEvents } from "./test-support.ts";

let server: TestServer;

beforeAll(async () => {
  // Trusting the proxy lets tests name the caller's IP with x-forwarded-for.
  server = await createTestServer({ trustProxy: { hops: 1 } });
});
afterAll(() => server.close());

const SAMPLE = {
  email: "user@example.com",
  auth_method: "password",
  oauth_provider: null,
  country_code: null,
};

function testRules(project: TestProject, body: unknown, headers: Record<string, string> = {}) {
  return server.request("/api/v1/internal/sign-up-rules-test", {
    method: "POST",
    headers: project.headers("admin", headers),
    body,
  });
}

function stats(project: TestProject) {
  return server.request("/api/v1/internal/sign-up-rules-stats", { headers: project.headers("admin") });
}

describe("POST /internal/sign-up-rules-test", () => {
  it("answers the documented shape: context, each evaluated rule, and the outcome", async () => {
    const project = await server.createProject("Rules tester");
    await configureRules(
      project,
      {
        "log-first": {
          displayName: "Log first",
          priority: 2,
          condition: 'emailDomain == "example.com"',
          action: "log",
        },
        "block-oauth": {
          displayName: "Block OAuth",
          priority: 1,
          condition: 'authMethod == "oauth" && oauthProvider == "google"',
          action: "reject",
          message: "OAuth blocked",
        },
        "off-rule": { priority: 5, condition: "true", action: "reject", enabled: false },
        "no-condition": { priority: 3, action: "restrict" },
        "after-decision": { priority: 0, condition: "true", action: "log" },
      },
      "allow",
    );
    const response = await testRules(project, {
      email: "  Test@Example.com ",
      auth_method: "oauth",
      oauth_provider: "google",
      country_code: "de",
      turnstile_result: "ok",
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      context: {
        email: "test@example.com",
        email_domain: "example.com",
        country_code: "DE",
        auth_method: "oauth",
        oauth_provider: "google",
        turnstile_result: "ok",
        risk_scores: { bot: 0, free_trial_abuse: 0 },
      },
      evaluations: [
        {
          rule_id: "off-rule",
          display_name: "",
          enabled: false,
          condition: "true",
          status: "disabled",
          action: { type: "reject" },
        },
        {
          rule_id: "no-condition",
          display_name: "",
          enabled: true,
          condition: "",
          status: "missing_condition",
          action: { type: "restrict" },
        },
        {
          rule_id: "log-first",
          display_name: "Log first",
          enabled: true,
          condition: 'emailDomain == "example.com"',
          status: "matched",
          action: { type: "log" },
        },
        {
          rule_id: "block-oauth",
          display_name: "Block OAuth",
          enabled: true,
          condition: 'authMethod == "oauth" && oauthProvider == "google"',
          status: "matched",
          action: { type: "reject", message: "OAuth blocked" },
        },
      ],
      outcome: {
        should_allow: false,
        decision: "reject",
        decision_rule_id: "block-oauth",
        restricted_because_of_rule_id: null,
      },
    });
    // Testing logs nothing, though two rules matched.
    expect(await triggerEvents(server, project.id)).toEqual([]);
  });

  it("uses the default action with no rules, and derives country and risk scores when not given", async () => {
    const project = await server.createProject("Rules defaults");
    const response = await testRules(project, SAMPLE, { "x-forwarded-for": "81.2.69.142" });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      context: {
        email: "user@example.com",
        email_domain: "example.com",
        country_code: "GB",
        auth_method: "password",
        oauth_provider: "",
        turnstile_result: "invalid",
        // 0 whatever the signals, as the reference's open-source engine scores (PROTOCOL-EXTRA §8.11).
        risk_scores: { bot: 0, free_trial_abuse: 0 },
      },
      evaluations: [],
      outcome: {
        should_allow: true,
        decision: "default-allow",
        decision_rule_id: null,
        restricted_because_of_rule_id: null,
      },
    });

    // With the project's opt-in heuristic, the missing challenge result (`invalid`) counts (risk-scores.ts).
    await project.configure({ "gatehouse.signUpRiskHeuristics": true });
    const heuristic = await testRules(project, SAMPLE);
    expect(heuristic.body.context.risk_scores).toEqual({ bot: 40, free_trial_abuse: 0 });
  });

  it("takes given risk scores over derived ones, and reports a restriction and a default rejection", async () => {
    const project = await server.createProject("Rules scores");
    await configureRules(
      project,
      {
        bots: { condition: "riskScores.bot >= 90", action: "restrict", priority: 1 },
        "us-only": { condition: 'countryCode == "US"', action: "allow" },
      },
      "reject",
    );
    const scored = await testRules(project, {
      ...SAMPLE,
      email: null,
      country_code: "GB",
      turnstile_result: "error",
      risk_scores: { bot: 95, free_trial_abuse: 3 },
    });
    expect(scored.status, scored.text).toBe(200);
    expect(scored.body.context).toMatchObject({
      email: "",
      email_domain: "",
      turnstile_result: "error",
      risk_scores: { bot: 95, free_trial_abuse: 3 },
    });
    expect(scored.body.evaluations.map((e: { status: string }) => e.status)).toEqual([
      "matched",
      "not_matched",
    ]);
    expect(scored.body.outcome).toEqual({
      should_allow: false,
      decision: "default-reject",
      decision_rule_id: null,
      restricted_because_of_rule_id: "bots",
    });

    // The country from a development email tag (never in production), when the body gives none.
    const tagged = await testRules(project, { ...SAMPLE, email: "someone+us@example.com" });
    expect(tagged.body.context.country_code).toBe("US");
    expect(tagged.body.outcome).toMatchObject({
      should_allow: true,
      decision: "allow",
      decision_rule_id: "us-only",
    });
  });

  it("reports a condition's run-time error and treats it as no match", async () => {
    const project = await server.createProject("Rules broken");
    // Saved (it type-checks), but `int()` of this address fails when run.
    await configureRules(project, { broken: { condition: "int(email) > 1", action: "reject" } });
    const response = await testRules(project, SAMPLE);
    expect(response.status, response.text).toBe(200);
    expect(response.body.evaluations).toEqual([
      expect.objectContaining({ rule_id: "broken", status: "error", error: expect.any(String) }),
    ]);
    expect(response.body.outcome.decision).toBe("default-allow");
  });

  it.each([
    ["an empty body", {}],
    ["a missing country_code", { email: "a@example.com", auth_method: "password", oauth_provider: null }],
    ["an unknown auth method", { ...SAMPLE, auth_method: "magic" }],
    ["a country that is not an ISO code", { ...SAMPLE, country_code: "USA" }],
    ["a risk score above 100", { ...SAMPLE, risk_scores: { bot: 101, free_trial_abuse: 0 } }],
    ["a fractional risk score", { ...SAMPLE, risk_scores: { bot: 1.5, free_trial_abuse: 0 } }],
    ["half of the risk scores", { ...SAMPLE, risk_scores: { bot: 1 } }],
    ["an unknown turnstile result", { ...SAMPLE, turnstile_result: "maybe" }],
    ["an email that is not a string", { ...SAMPLE, email: 42 }],
    ["an unknown property", { ...SAMPLE, extra: true }],
    ["a NUL character", { ...SAMPLE, email: "a\u0000@example.com" }],
    ["an over-long email", { ...SAMPLE, email: `${"a".repeat(250)}@example.com` }],
  ])("refuses %s with a 400", async (_, body) => {
    const project = await server.createProject("Rules bad input");
    const response = await testRules(project, body);
    expect(response.status, response.text).toBe(400);
  });

  it("is for admins only", async () => {
    const project = await server.createProject("Rules access");
    for (const accessType of ["client", "server"] as const) {
      const response = await server.request("/api/v1/internal/sign-up-rules-test", {
        method: "POST",
        headers: project.headers(accessType),
        body: SAMPLE,
      });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    }
  });
});

describe("GET /internal/sign-up-rules-stats", () => {
  function signUp(project: TestProject, email: string) {
    return server.request("/api/v1/auth/password/sign-up", {
      method: "POST",
      headers: project.headers("client"),
      body: { email, password: "correct horse battery" },
    });
  }

  it("is empty for a project without triggers", async () => {
    const project = await server.createProject("Stats empty");
    const response = await stats(project);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      rule_triggers: [],
      analytics_hours: 48,
      total_triggers: 0,
      triggers_by_action: { allow: 0, reject: 0, restrict: 0, log: 0 },
      rule_failures: [],
    });
  });

  it("counts real sign-ups' triggers per rule, by hour for 48 hours and all time, for this project only", async () => {
    const project = await server.createProject("Stats");
    const other = await server.createProject("Stats other");
    await project.configure({ "auth.password.allowSignIn": true });
    await other.configure({ "auth.password.allowSignIn": true });
    const rules = {
      watch: { condition: "true", action: "log" as const, priority: 3 },
      "spam-restrict": { condition: 'email.startsWith("spam")', action: "restrict" as const, priority: 2 },
      "block-evil": { condition: 'emailDomain == "evil.test"', action: "reject" as const, priority: 1 },
    };
    await configureRules(project, rules);
    await configureRules(other, rules);

    expect((await signUp(project, "alice@example.com")).status).toBe(200);
    expect((await signUp(project, "spam1@example.com")).status).toBe(200);
    expect((await signUp(project, "bob@evil.test")).status).toBe(403);
    expect((await signUp(other, "carol@evil.test")).status).toBe(403);
    // A trigger from three days ago counts all time only.
    await server.deps.db.insert(events).values({
      projectId: project.id,
      id: randomUuid(),
      type: "$sign-up-rule-trigger",
      data: { rule_id: "block-evil", action: "reject", email: "old@evil.test", auth_method: "password" },
      occurredAt: new Date(Date.now() - 3 * 24 * 3_600_000),
      dispatchedAt: new Date(),
    });
    await server.deps.activity.flush();

    const hourOf = (ms: number) => new Date(Math.floor(ms / 3_600_000) * 3_600_000).toISOString();
    const hourBefore = hourOf(Date.now());
    const response = await stats(project);
    const hourAfter = hourOf(Date.now());
    expect(response.status, response.text).toBe(200);
    const body = response.body;
    expect(body.total_triggers).toBe(5);
    expect(body.triggers_by_action).toEqual({ allow: 0, reject: 1, restrict: 1, log: 3 });
    expect(
      body.rule_triggers.map((r: { rule_id: string; total_count: number; all_time_count: number }) => [
        r.rule_id,
        r.total_count,
        r.all_time_count,
      ]),
    ).toEqual([
      ["block-evil", 1, 2],
      ["spam-restrict", 1, 1],
      ["watch", 3, 3],
    ]);
    const hourly = body.rule_triggers.find((r: { rule_id: string }) => r.rule_id === "watch").hourly_counts;
    expect(hourly).toHaveLength(48);
    // The window ends with the hour the request was answered in, oldest first, one entry per hour.
    const lastHour = hourly.at(-1).hour;
    expect([hourBefore, hourAfter]).toContain(lastHour);
    expect(hourly[0].hour).toBe(new Date(Date.parse(lastHour) - 47 * 3_600_000).toISOString());
    expect(hourly.reduce((sum: number, entry: { count: number }) => sum + entry.count, 0)).toBe(3);
    // All three sign-ups were a moment ago: in the last hour, or the one before if an hour began meanwhile.
    expect(hourly.slice(0, -2).every((entry: { count: number }) => entry.count === 0)).toBe(true);
  });
});
