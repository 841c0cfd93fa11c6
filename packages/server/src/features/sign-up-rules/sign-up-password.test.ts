/**
 * Sign-up rules on password sign-up, on a password sign-up that upgrades an anonymous user, and where they do not
 * run: creating an anonymous user, signing in, and a server creating a user. Through the real routes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { findUser } from "../users/service.ts";
import { SIGN_UP_REJECTED_MESSAGE } from "./apply.ts";
import { configureRules, NOTHING, projectRowCounts, triggerEvents } from "./test-support.ts";

const PASSWORD = "correct horse battery";
let server: TestServer;

beforeAll(async () => {
  server = await createTestServer({ trustProxy: { hops: 1 } });
});
afterAll(() => server.close());

/** A project that signs up with passwords and gives every new user a personal team. */
async function newProject(name: string) {
  const project = await server.createProject(name);
  await project.configure({ "auth.password.allowSignIn": true, "teams.createPersonalTeamOnSignUp": true });
  return project;
}

function signUp(project: TestProject, email: string, headers: Record<string, string> = {}) {
  return server.request("/api/v1/auth/password/sign-up", {
    method: "POST",
    headers: project.headers("client", headers),
    body: { email, password: PASSWORD },
  });
}

async function serverUser(project: TestProject, userId: string) {
  const response = await server.request(`/api/v1/users/${userId}`, { headers: project.headers("server") });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe("password sign-up", () => {
  it("is rejected by a matching reject rule, leaving no user, channel or team, and logs the trigger", async () => {
    const project = await newProject("Password reject");
    await configureRules(project, {
      "block-evil": {
        displayName: "Block evil.test",
        condition: 'emailDomain == "evil.test"',
        action: "reject",
        message: "for the owner only",
      },
    });
    const response = await signUp(project, "Mallory@Evil.test");
    expectKnownError(response, 403, "SIGN_UP_REJECTED", { message: SIGN_UP_REJECTED_MESSAGE });
    expect(await projectRowCounts(server, project.id)).toEqual(NOTHING);
    expect(await triggerEvents(server, project.id)).toEqual([
      {
        data: {
          rule_id: "block-evil",
          action: "reject",
          email: "mallory@evil.test",
          auth_method: "password",
          oauth_provider: "",
        },
        userId: null,
        countryCode: null,
      },
    ]);

    // Another domain is not caught.
    expect((await signUp(project, "alice@example.com")).status).toBe(200);
  });

  it("creates a restricted user with the rule in the private details, storing country and risk scores", async () => {
    const project = await newProject("Password restrict");
    await configureRules(project, {
      "plus-addresses": {
        displayName: "Plus addresses",
        condition: 'email.contains("+")',
        action: "restrict",
        priority: 2,
      },
      "log-all": { condition: "true", action: "log", priority: 1 },
    });
    // In development an @example.com address tagged with a country names it (context.ts).
    const response = await signUp(project, "trial+ca@example.com");
    expect(response.status, response.text).toBe(200);
    const user = await serverUser(project, response.body.user_id);
    expect(user).toMatchObject({
      primary_email: "trial+ca@example.com",
      restricted_by_admin: true,
      restricted_by_admin_reason: null,
      restricted_by_admin_private_details: "Restricted by sign-up rule: plus-addresses (Plus addresses)",
      is_restricted: true,
      restricted_reason: { type: "restricted_by_administrator" },
      country_code: "CA",
      // No signal, so 0, as the reference's open-source engine scores every sign-up (PROTOCOL-EXTRA §8.11).
      risk_scores: { sign_up: { bot: 0, free_trial_abuse: 0 } },
    });
    expect((await triggerEvents(server, project.id)).map((e) => [e.data, e.countryCode])).toEqual([
      [expect.objectContaining({ rule_id: "plus-addresses", action: "restrict" }), "CA"],
      [expect.objectContaining({ rule_id: "log-all", action: "log" }), "CA"],
    ]);
  });

  it("stores the country of the caller's address and the scores on every sign-up, rules or not", async () => {
    const project = await newProject("Password plain");
    const response = await signUp(project, "jdoe83920471@example.com", { "x-forwarded-for": "8.8.8.8" });
    expect(response.status, response.text).toBe(200);
    expect(await serverUser(project, response.body.user_id)).toMatchObject({
      restricted_by_admin: false,
      is_restricted: false,
      country_code: "US",
      // Digits in the address are no signal unless the project asks for the heuristic (next test).
      risk_scores: { sign_up: { bot: 0, free_trial_abuse: 0 } },
    });
    expect(await triggerEvents(server, project.id)).toEqual([]);
  });

  it("scores with the heuristic only for a project that turns it on, and its rules read those scores", async () => {
    const project = await newProject("Password heuristics");
    await project.configure({ "gatehouse.signUpRiskHeuristics": true });
    await configureRules(project, {
      "likely-bots": { condition: "riskScores.bot >= 20", action: "restrict", priority: 1 },
    });
    const response = await signUp(project, "jdoe83920471@example.com");
    expect(response.status, response.text).toBe(200);
    expect(await serverUser(project, response.body.user_id)).toMatchObject({
      is_restricted: true,
      risk_scores: { sign_up: { bot: 20, free_trial_abuse: 0 } },
    });
  });

  it("applies the default action when nothing decides, unless an allow rule matches first", async () => {
    const project = await newProject("Password default reject");
    await configureRules(
      project,
      {
        staff: { condition: 'emailDomain == "staff.test"', action: "allow", priority: 1 },
        "all-evil": { condition: "true", action: "reject", enabled: false },
      },
      "reject",
    );
    expectKnownError(await signUp(project, "visitor@example.com"), 403, "SIGN_UP_REJECTED", {
      message: SIGN_UP_REJECTED_MESSAGE,
    });
    expect(await projectRowCounts(server, project.id)).toEqual(NOTHING);
    const allowed = await signUp(project, "ann@staff.test");
    expect(allowed.status, allowed.text).toBe(200);
    expect((await serverUser(project, allowed.body.user_id)).restricted_by_admin).toBe(false);
  });

  it("does not apply to signing in, nor to a server creating a user", async () => {
    const project = await newProject("Password sign-in");
    const existing = await signUp(project, "early@example.com");
    expect(existing.status).toBe(200);
    await configureRules(project, { everyone: { condition: "true", action: "reject" } }, "reject");

    const signIn = await server.request("/api/v1/auth/password/sign-in", {
      method: "POST",
      headers: project.headers("client"),
      body: { email: "early@example.com", password: PASSWORD },
    });
    expect(signIn.status, signIn.text).toBe(200);
    const created = await server.request("/api/v1/users", {
      method: "POST",
      headers: project.headers("server"),
      body: { primary_email: "imported@example.com" },
    });
    expect(created.status, created.text).toBe(201);
    expect(await triggerEvents(server, project.id)).toEqual([]);
  });
});

describe("anonymous users", () => {
  it("are created without evaluating the rules", async () => {
    const project = await newProject("Anonymous creation");
    await configureRules(project, { everyone: { condition: "true", action: "reject" } }, "reject");
    const response = await server.request("/api/v1/auth/anonymous/sign-up", {
      method: "POST",
      headers: project.headers("client"),
    });
    expect(response.status, response.text).toBe(200);
    expect((await findUser(server.deps.db, project.id, response.body.user_id))?.isAnonymous).toBe(true);
    expect(await triggerEvents(server, project.id)).toEqual([]);
  });

  it("stay anonymous, with nothing added, when their password sign-up is rejected", async () => {
    const project = await newProject("Anonymous upgrade reject");
    await configureRules(project, {
      "block-evil": { condition: 'emailDomain == "evil.test"', action: "reject" },
    });
    const { user, accessToken } = await createSignedInUser(server, project.id, { isAnonymous: true });
    const before = await projectRowCounts(server, project.id);

    const response = await signUp(project, "anon@evil.test", {
      "x-stack-access-token": accessToken,
      "x-stack-allow-anonymous-user": "true",
    });
    expectKnownError(response, 403, "SIGN_UP_REJECTED", { message: SIGN_UP_REJECTED_MESSAGE });
    expect(await findUser(server.deps.db, project.id, user.id)).toMatchObject({
      isAnonymous: true,
      passwordHash: null,
    });
    expect(await projectRowCounts(server, project.id)).toEqual(before);
    expect((await triggerEvents(server, project.id)).map((e) => e.userId)).toEqual([user.id]);
  });

  it("are restricted in place by a restrict rule, keeping their country and earlier details", async () => {
    const project = await newProject("Anonymous upgrade restrict");
    await configureRules(project, {
      review: { displayName: "Manual review", condition: 'authMethod == "password"', action: "restrict" },
    });
    const { user, accessToken } = await createSignedInUser(server, project.id, {
      isAnonymous: true,
      restrictedByAdmin: true,
      restrictedByAdminPrivateDetails: "Flagged by support",
      countryCode: "FR",
    });
    const response = await signUp(project, "anon-upgrade@example.com", {
      "x-stack-access-token": accessToken,
      "x-stack-allow-anonymous-user": "true",
      "x-forwarded-for": "8.8.8.8",
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.user_id).toBe(user.id);
    expect(await serverUser(project, user.id)).toMatchObject({
      is_anonymous: false,
      primary_email: "anon-upgrade@example.com",
      restricted_by_admin: true,
      restricted_by_admin_private_details:
        "Flagged by support\n\nRestricted by sign-up rule: review (Manual review)",
      country_code: "FR",
      risk_scores: { sign_up: { bot: 0, free_trial_abuse: 0 } },
    });
  });
});
