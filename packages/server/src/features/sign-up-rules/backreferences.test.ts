/**
 * Regular expression backreferences in sign-up rule conditions (issue 35 item 5): `matches` runs JavaScript
 * regular expressions as the reference does, with a double-quoted pattern read the reference's way, and the
 * backtracking screen still refuses what could take unbounded time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { evaluateCondition, unsafePatternReason } from "./cel.ts";
import { createSignUpRuleContext } from "./context.ts";
import { configureRules } from "./test-support.ts";

const contextOf = (email: string) =>
  createSignUpRuleContext({
    email,
    countryCode: null,
    authMethod: "password",
    oauthProvider: null,
    riskScores: { bot: 0, free_trial_abuse: 0 },
  });

describe("backreferences in matches()", () => {
  it.each([
    // The CEL way: an escaped backslash.
    ['email.matches("^(.)\\\\1")', "aab@example.com", true],
    ['email.matches("^(.)\\\\1")', "abb@example.com", false],
    // The reference's way: the pattern's own escapes, written once.
    ['email.matches("^(.)\\1")', "aab@example.com", true],
    ['email.matches("^(?<first>[a-z])\\k<first>")', "zzz@example.com", true],
    ['email.matches("^(\\w+)\\.\\1@")', "anna.anna@example.com", true],
    ['email.matches("^(\\w+)\\.\\1@")', "anna.bob@example.com", false],
    ['emailDomain.matches("^(\\w+)\\.\\1$")', "x@mail.mail", true],
    // Other regular expression escapes read the same way: \d a digit, \b a word boundary (not a backspace).
    ['email.matches("^\\d{3}")', "123@example.com", true],
    ['email.matches("\\bexample\\b")', "a@example.com", true],
  ])("%s on %s is %s", (condition, email, expected) => {
    expect(evaluateCondition(condition, contextOf(email))).toEqual({ matched: expected });
  });

  it("leaves single-quoted and raw CEL strings to CEL's own escapes", () => {
    expect(evaluateCondition("email.matches('^(.)\\\\1')", contextOf("aab@example.com"))).toEqual({
      matched: true,
    });
    expect(evaluateCondition('email.matches(r"^(.)\\1")', contextOf("aab@example.com"))).toEqual({
      matched: true,
    });
  });

  it("counts a backreference as an unbounded repetition, and refuses one inside a repeated group", () => {
    expect(unsafePatternReason("^(.)\\1")).toBeNull();
    expect(unsafePatternReason("^(?<a>.)\\k<a>")).toBeNull();
    expect(unsafePatternReason("((a)\\2)+")).toMatch(/repeated group/);
    expect(unsafePatternReason("(a*)\\1\\1\\1")).toMatch(/unbounded/);
    const refused = evaluateCondition('email.matches("((a)\\2)*$")', contextOf("a@example.com"));
    expect(refused).toEqual({ error: expect.stringMatching(/repeated group/) });
  });
});

describe("over HTTP", () => {
  let server: TestServer;
  let project: TestProject;

  beforeAll(async () => {
    server = await createTestServer();
    project = await server.createProject("Backreference rules");
    // The dashboard writes the condition as JSON text; this is `email.matches("^([a-z])\1")` in the condition.
    await configureRules(project, {
      "doubled-letter": {
        displayName: "Doubled first letter",
        condition: 'email.matches("^([a-z])\\1")',
        action: "reject",
        message: "No doubled letters",
      },
    });
  });
  afterAll(() => server.close());

  it("matches in the rule tester", async () => {
    const tested = await server.request("/api/v1/internal/sign-up-rules-test", {
      method: "POST",
      headers: project.headers("admin"),
      body: { email: "aaron@example.com", auth_method: "password", oauth_provider: null, country_code: null },
    });
    expect(tested.status, tested.text).toBe(200);
    expect(tested.body.evaluations).toEqual([
      expect.objectContaining({ rule_id: "doubled-letter", status: "matched" }),
    ]);
    expect(tested.body.outcome).toMatchObject({ should_allow: false, decision: "reject" });
  });

  it("rejects a matching sign-up and lets another through", async () => {
    const signUp = (email: string) =>
      server.request("/api/v1/auth/password/sign-up", {
        method: "POST",
        headers: project.headers("client"),
        body: { email, password: "correct horse battery" },
      });
    expectKnownError(await signUp(`aa${uniqueEmail("rule")}`), 403, "SIGN_UP_REJECTED");
    const allowed = await signUp(`ab${uniqueEmail("rule")}`);
    expect(allowed.status, allowed.text).toBe(200);
  });
});
