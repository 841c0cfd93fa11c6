/**
 * Sign-up rules checked when saved, and failures recorded when run (issue #36, item 2): hostile conditions are
 * refused through every config write with the rule's id, the position and the reason; a rule stored before the
 * check does not block other writes; a condition that fails on a real sign-up counts as no match, and the failure
 * is recorded with the input that broke it and shown in the owners' stats.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { events } from "../events/schema.ts";
import { configOverrideApi } from "../project-config/test-support.ts";
import { projectConfigOverrides } from "../projects/schema.ts";
import { SIGN_UP_RULE_ERROR_EVENT } from "./apply.ts";
import { configureRules } from "./test-support.ts";

let server: TestServer;

beforeAll(async () => {
  // Trusting the proxy lets tests name the caller's IP (and so the country) with x-forwarded-for.
  server = await createTestServer({ trustProxy: { hops: 1 } });
});
afterAll(() => server.close());

const listOf = (count: number, item: (index: number) => string) =>
  `[${Array.from({ length: count }, (_, index) => item(index)).join(", ")}]`;

/** Conditions a hostile or careless owner might save, and what the refusal must say. */
const HOSTILE: [string, string, RegExp][] = [
  ["a wrong type", "emailDomain == 1", /at column 1: no such overload: string == int/],
  ["a non-boolean result", "email", /must be true or false/],
  ["an unknown variable", 'emial.endsWith("x")', /at column 1: Unknown variable: emial/],
  ["an unknown variable further on", 'email == "a" && emial == "x"', /at column 17: Unknown variable: emial/],
  ["an unknown method", 'email.frobnicate("x")', /no matching overload for 'string.frobnicate/],
  ["an unknown function", 'eval("x")', /no matching overload for 'eval/],
  ["an unknown risk score", "riskScores.nope > 1", /No such key: nope/],
  ["a syntax error", "email ==", /Unexpected token/],
  ["an unterminated string", 'emailDomain == "x', /at column 16/],
  ["a catastrophic pattern", 'email.matches("(a+)+$")', /repeated group/],
  ["an alternation repeated", 'email.matches("(a|aa)*b")', /repeated group/],
  [
    "a pattern hidden in a macro",
    '["a"].exists(p, email.matches("(x+)+y"))',
    /at column 17: .*repeated group/,
  ],
  ["a non-literal pattern", "email.matches(emailDomain)", /must be a string literal/],
  ["a pattern built from pieces", 'email.matches("a" + "b")', /must be a string literal/],
  ["an invalid pattern", 'email.matches("(")', /not a valid regular expression/],
  ["a lookbehind", 'email.matches("(?<=a)b")', /lookbehind/],
  ["an overlong condition", `email == "${"a".repeat(5000)}"`, /longer than 4000 characters/],
  ["too deep a nesting", `${"(".repeat(40)}true${")".repeat(40)}`, /Exceeded maxDepth/],
  [
    "a huge list",
    `emailDomain in ${listOf(400, (index) => `"d${index}"`)}`,
    /Exceeded max(ListElements|AstNodes)/,
  ],
  ["a huge map", `emailDomain in {${listOf(60, (index) => `"k${index}": 1`).slice(1, -1)}}`, /maxMapEntries/],
  ["a mixed list", 'email in ["a", 1]', /List elements must have the same type/],
  ["a macro with a bad variable", "[1].exists(1, true)", /invalid predicate iteration variable/],
  [
    "loops inside loops",
    'email.split("").all(a, email.split("").all(b, a != b))',
    /at column 1: the condition could take more than 100000 evaluation steps/,
  ],
  [
    "a value doubling itself",
    `cel.bind(a, email + email, ${"abcdefg"
      .split("")
      .map((name, index) => `cel.bind(${"bcdefgh"[index]}, ${name} + ${name}, `)
      .join("")}size(h) > 0${")".repeat(8)}`,
    /could (take more than 100000 evaluation steps|build a value of more than)/,
  ],
  ["a condition that is not text", 42 as unknown as string, /must be a CEL expression in a string/],
];

function rule(condition: string) {
  return { enabled: true, priority: 0, condition, action: { type: "reject" } };
}

describe("saving a rule", () => {
  let project: TestProject;
  beforeAll(async () => {
    project = await server.createProject("Rule checks");
  });

  it.each(HOSTILE)("refuses %s, naming the rule, where and why", async (_, condition, reason) => {
    const api = configOverrideApi(server, project);
    const response = await api.patch("environment", { "auth.signUpRules.hostile": rule(condition) });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toMatch(/Sign-up rule 'hostile': condition (is invalid|must be)/);
    expect(response.body).toMatch(reason);
    expect(await api.stored("environment")).not.toHaveProperty(["auth.signUpRules.hostile"]);
  });

  it("refuses an invalid condition through every config write, and saves a valid one", async () => {
    const api = configOverrideApi(server, project);
    const bad = { "auth.signUpRules.typo": rule('email.endsWith("x") || emial == "y"') };
    const message = "Sign-up rule 'typo': condition is invalid at column 24: Unknown variable: emial";
    const writes = [
      () => api.patch("project", bad),
      () => api.patch("branch", bad),
      () => api.patch("branch", bad, "server"),
      () => api.patch("environment", bad),
      () => api.put("environment", { config_string: JSON.stringify(bad) }),
      () =>
        api.put("branch", { config_string: JSON.stringify(bad), source: { type: "pushed-from-unknown" } }),
      // The legacy alias older SDKs send to the environment level.
      () =>
        server.request("/api/v1/internal/config/override", {
          method: "PATCH",
          headers: project.headers("admin"),
          body: { config_override_string: JSON.stringify(bad) },
        }),
    ];
    for (const write of writes) {
      const response = await write();
      expect(response.status, response.text).toBe(400);
      expect(response.body).toContain(message);
    }
    const config = JSON.parse(
      (await server.request("/api/v1/internal/config", { headers: project.headers("admin") })).body
        .config_string,
    );
    expect(config.auth.signUpRules).not.toHaveProperty("typo");

    const good = await api.patch("environment", { "auth.signUpRules.typo": rule('emailDomain == "x.test"') });
    expect(good.status, good.text).toBe(200);
  });

  it("counts the position in a multi-line condition by line and column", async () => {
    const response = await configOverrideApi(server, project).patch("environment", {
      "auth.signUpRules.lines": rule('email == "a"\n  || emial == "b"'),
    });
    expect(response.status).toBe(400);
    expect(response.body).toContain("Sign-up rule 'lines': condition is invalid at line 2, column 6");
  });

  it("does not hold a rule stored before the check against other writes, but refuses it when it is edited", async () => {
    const stale = await server.createProject("Rule stored before the check");
    const api = configOverrideApi(server, stale);
    await server.deps.db
      .update(projectConfigOverrides)
      .set({ override: { "auth.signUpRules.old": rule("emial == 1") } })
      .where(
        and(eq(projectConfigOverrides.projectId, stale.id), eq(projectConfigOverrides.level, "environment")),
      );
    const unrelated = await api.patch("environment", { "auth.allowSignUp": true });
    expect(unrelated.status, unrelated.text).toBe(200);
    const edited = await api.patch("environment", { "auth.signUpRules.old": rule("email == 2") });
    expect(edited.status).toBe(400);
    expect(edited.body).toContain("Sign-up rule 'old': condition is invalid at column 1: no such overload");
    // Edited to another condition that fails with the very same words: still refused, it is not the stored one.
    const sameError = await api.patch("environment", { "auth.signUpRules.old": rule("emial == 2") });
    expect(sameError.status, sameError.text).toBe(400);
    expect(sameError.body).toContain(
      "Sign-up rule 'old': condition is invalid at column 1: Unknown variable: emial",
    );
    expect(await api.stored("environment")).toMatchObject({ "auth.signUpRules.old": rule("emial == 1") });
  });
});

describe("a condition that fails on a sign-up", () => {
  function signUp(project: TestProject, email: string) {
    return server.request("/api/v1/auth/password/sign-up", {
      method: "POST",
      headers: project.headers("client", { "x-forwarded-for": "81.2.69.142" }),
      body: { email, password: "correct horse battery" },
    });
  }

  function stats(project: TestProject) {
    return server.request("/api/v1/internal/sign-up-rules-stats", { headers: project.headers("admin") });
  }

  it("counts as no match, and is recorded with the input that broke it for the owners' stats", async () => {
    const project = await server.createProject("Rule failing");
    const other = await server.createProject("Rule failing other");
    await project.configure({ "auth.password.allowSignIn": true });
    // Type-checks, but `int()` of an address that is not a number fails when run.
    await configureRules(project, {
      numeric: { condition: 'int(email.split("@")[0]) > 5', action: "reject" },
    });

    const response = await signUp(project, "jane@example.com");
    expect(response.status, response.text).toBe(200);
    await server.deps.activity.flush();
    const recorded = await server.deps.db
      .select({ data: events.data, countryCode: events.countryCode })
      .from(events)
      .where(and(eq(events.projectId, project.id), eq(events.type, SIGN_UP_RULE_ERROR_EVENT)));
    expect(recorded).toEqual([
      {
        data: {
          rule_id: "numeric",
          action: "reject",
          condition: 'int(email.split("@")[0]) > 5',
          error: expect.any(String),
          email: "jane@example.com",
          auth_method: "password",
          oauth_provider: "",
        },
        countryCode: "GB",
      },
    ]);

    const body = (await stats(project)).body;
    expect(body.rule_failures).toEqual([
      {
        rule_id: "numeric",
        failing: true,
        total_count: 1,
        all_time_count: 1,
        last_failure: {
          occurred_at: expect.any(String),
          error: (recorded[0]!.data as { error: string }).error,
          condition: 'int(email.split("@")[0]) > 5',
          input: {
            email: "jane@example.com",
            country_code: "GB",
            auth_method: "password",
            oauth_provider: "",
          },
        },
      },
    ]);
    expect(body.rule_triggers).toEqual([]);
    expect((await stats(other)).body.rule_failures).toEqual([]);

    // Once the condition is edited, its old failures no longer make the rule failing.
    await configureRules(project, { numeric: { condition: 'email.startsWith("0")', action: "reject" } });
    expect((await stats(project)).body.rule_failures).toEqual([
      expect.objectContaining({ rule_id: "numeric", failing: false, all_time_count: 1 }),
    ]);
  });
});
