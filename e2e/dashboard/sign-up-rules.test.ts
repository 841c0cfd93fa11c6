import type { GatehouseAdminApp } from "@gatehouse/js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  ownerWithProject,
  screenshot,
  startDashboard,
} from "./test-support.ts";

/**
 * The Sign-up rules page in the browser: an owner adds rules, tries sample sign-ups with the tester, sees a real
 * sign-up through the API rejected and counted, is refused an invalid condition and sees a condition failing on a
 * real sign-up with the input that broke it, then edits, disables and deletes a rule and sets the default
 * action. Every change is read back through the API.
 */
let env: DashboardEnv;
let page: Page;
let projectId: string;
let admin: () => Promise<GatehouseAdminApp>;
const owner = "sign-up-rules-owner@example.com";

const modal = () => page.getByRole("dialog");
const ruleRow = (id: string) => page.getByTestId("sign-up-rules-table").locator(`tr[data-rule-id="${id}"]`);
const testedRow = (id: string) =>
  page.getByTestId("sign-up-rules-test-table").locator(`tr[data-rule-id="${id}"]`);

async function storedRules(): Promise<Record<string, unknown>> {
  const config = await (await (await admin()).getProject()).getConfig();
  const auth = config.auth as { signUpRules: Record<string, unknown>; signUpRulesDefaultAction: string };
  return { ...auth.signUpRules, $default: auth.signUpRulesDefaultAction };
}

async function addRule(input: {
  name: string;
  condition: string;
  action: string;
  priority: string;
  message?: string;
  screenshotName?: string;
}) {
  await page.getByRole("button", { name: "Add rule" }).first().click();
  await modal().locator('input[name="ruleDisplayName"]').fill(input.name);
  await modal().locator('textarea[name="ruleCondition"]').fill(input.condition);
  await modal().locator('select[name="ruleAction"]').selectOption(input.action);
  await modal().locator('input[name="rulePriority"]').fill(input.priority);
  if (input.message) await modal().locator('input[name="ruleMessage"]').fill(input.message);
  if (input.screenshotName) await screenshot(page, input.screenshotName);
  await modal().getByRole("button", { name: "Add rule" }).click();
  await modal().waitFor({ state: "detached" });
}

async function runTester(email: string) {
  const tester = page.getByTestId("sign-up-rules-tester");
  await tester.locator('input[name="testEmail"]').fill(email);
  await tester.getByRole("button", { name: "Test" }).click();
  const outcome = page.getByTestId("sign-up-rules-outcome");
  await outcome.waitFor();
  // A previous run's answer may still be shown: wait for this one's email.
  await tester.getByText(`As evaluated: ${email}`).waitFor();
  return outcome;
}

/** A sign-up of the project as an app makes it, over HTTP with a publishable key. */
async function signUpThroughApi(email: string) {
  const keys = await (await admin()).createInternalApiKey({
    description: "sign-up rules test",
    expiresAt: new Date(Date.now() + 3_600_000),
    hasPublishableClientKey: true,
    hasSecretServerKey: false,
    hasSuperSecretAdminKey: false,
  });
  const response = await fetch(`${env.baseUrl}/api/v1/auth/password/sign-up`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-stack-project-id": projectId,
      "x-stack-access-type": "client",
      "x-stack-publishable-client-key": keys.publishableClientKey!,
    },
    body: JSON.stringify({ email, password: "correct horse battery" }),
  });
  return { status: response.status, body: (await response.json()) as { code?: string; user_id?: string } };
}

beforeAll(async () => {
  env = await startDashboard();
  page = await env.newPage();
  projectId = await ownerWithProject(env, page, owner, "Sign-up rules project");
  const api = await ownerApi(env, owner);
  admin = async () => adminAppOf(await api.project(projectId));
});
afterAll(() => env?.close());

describe("the Sign-up rules page", () => {
  it("creates rules in the form and stores them in the project's config", async () => {
    await page.getByRole("link", { name: "Sign-up rules" }).click();
    await page.waitForURL(/\/projects\/[^/]+\/sign-up-rules$/);
    await page.getByRole("heading", { name: "No sign-up rules yet" }).waitFor();

    await addRule({
      name: "Block evil.test",
      condition: 'emailDomain == "evil.test"',
      action: "reject",
      priority: "5",
      message: "Known spam domain",
      screenshotName: "sign-up-rules-form",
    });
    await ruleRow("block-evil-test").waitFor();
    await addRule({
      name: "Review plus addresses",
      condition: 'email.contains("+")',
      action: "restrict",
      priority: "1",
    });
    await ruleRow("review-plus-addresses").waitFor();

    expect(await storedRules()).toEqual({
      "block-evil-test": {
        enabled: true,
        displayName: "Block evil.test",
        priority: 5,
        condition: 'emailDomain == "evil.test"',
        action: { type: "reject", message: "Known spam domain" },
      },
      "review-plus-addresses": {
        enabled: true,
        displayName: "Review plus addresses",
        priority: 1,
        condition: 'email.contains("+")',
        action: { type: "restrict" },
      },
      $default: "allow",
    });
    // Listed in evaluation order.
    const ids = await page
      .getByTestId("sign-up-rules-table")
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-rule-id")));
    expect(ids).toEqual(["block-evil-test", "review-plus-addresses"]);
  });

  it("tests sample sign-ups with the tester, showing each rule's status and the outcome", async () => {
    const rejected = await runTester("mallory@evil.test");
    expect(await rejected.getAttribute("data-decision")).toBe("reject");
    expect(await rejected.textContent()).toBe("Rejected by “Block evil.test”");
    expect(await testedRow("block-evil-test").getAttribute("data-status")).toBe("matched");
    expect(await testedRow("review-plus-addresses").getAttribute("data-status")).toBe("not_reached");

    const restricted = await runTester("trial+1@example.com");
    expect(await restricted.getAttribute("data-decision")).toBe("default-allow");
    expect(await restricted.textContent()).toBe(
      "Allowed by the default action, restricted by “Review plus addresses”",
    );
    expect(await testedRow("block-evil-test").getAttribute("data-status")).toBe("not_matched");
    expect(await testedRow("review-plus-addresses").getAttribute("data-status")).toBe("matched");
    await screenshot(page, "sign-up-rules");

    // Testing logs nothing.
    await env.gatehouse.deps.activity.flush();
    expect((await (await admin()).getSignUpRulesStats()).total_triggers).toBe(0);
  });

  it("rejects a real sign-up through the API, and counts the trigger on the page", async () => {
    const response = await signUpThroughApi("mallory@evil.test");
    expect(response).toMatchObject({ status: 403, body: { code: "SIGN_UP_REJECTED" } });
    const users = await (await admin()).listUsers();
    expect(users.map((user) => user.primaryEmail)).not.toContain("mallory@evil.test");

    await env.gatehouse.deps.activity.flush();
    await page.reload();
    // The counts load after the rules ("…" meanwhile): wait for them, then read them whole.
    const triggers = ruleRow("block-evil-test").getByTestId("rule-triggers");
    await triggers.filter({ hasNotText: "…" }).waitFor();
    expect(await triggers.textContent()).toBe("1 in 48 h · 1 in all");
  });

  it("refuses an invalid condition with the server's reason, and shows a rule failing on a real sign-up with its input", async () => {
    await page.getByRole("button", { name: "Add rule" }).first().click();
    await modal().locator('input[name="ruleDisplayName"]').fill("Numeric local part");
    const condition = modal().locator('textarea[name="ruleCondition"]');
    await condition.fill('int(emial.split("@")[0]) > 5');
    await modal().getByRole("button", { name: "Add rule" }).click();
    const refusal = modal().getByRole("alert");
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain(
      "Sign-up rule 'numeric-local-part': condition is invalid at column 5: Unknown variable: emial",
    );
    expect(await storedRules()).not.toHaveProperty("numeric-local-part");

    // Type-checks, but fails when run on an address whose local part is not a number.
    await condition.fill('int(email.split("@")[0]) > 5');
    await modal().getByRole("button", { name: "Add rule" }).click();
    await modal().waitFor({ state: "detached" });
    expect((await storedRules())["numeric-local-part"]).toMatchObject({
      condition: 'int(email.split("@")[0]) > 5',
    });

    // A failing condition counts as no match: the sign-up goes through, and the failure is on the page.
    expect((await signUpThroughApi("jane.failing@example.com")).status).toBe(200);
    await env.gatehouse.deps.activity.flush();
    await page.reload();
    const failure = ruleRow("numeric-local-part").getByTestId("rule-failure");
    await failure.waitFor();
    const text = await failure.textContent();
    expect(text).toContain("Failing");
    expect(text).toContain("1 in 48 h · 1 in all; counted as no match.");
    expect(text).toContain("jane.failing@example.com");
    await screenshot(page, "sign-up-rules-failing");
    expect(await ruleRow("block-evil-test").getByTestId("rule-failure").count()).toBe(0);

    await (await (await admin()).getProject()).updateConfig({ "auth.signUpRules.numeric-local-part": null });
  });

  it("edits, disables and deletes rules, and sets the default action", async () => {
    await ruleRow("block-evil-test").getByRole("button", { name: "Edit Block evil.test" }).click();
    await modal().locator('textarea[name="ruleCondition"]').fill('emailDomain in ["evil.test", "spam.test"]');
    await modal().getByRole("button", { name: "Save rule" }).click();
    await modal().waitFor({ state: "detached" });
    await ruleRow("block-evil-test").getByText('emailDomain in ["evil.test", "spam.test"]').waitFor();

    await ruleRow("review-plus-addresses").getByRole("switch").click();
    await expect
      .poll(async () => (await storedRules())["review-plus-addresses"])
      .toMatchObject({ enabled: false });

    await page.locator('select[name="defaultAction"]').selectOption("reject");
    await expect.poll(async () => (await storedRules()).$default).toBe("reject");
    expect((await storedRules())["block-evil-test"]).toMatchObject({
      condition: 'emailDomain in ["evil.test", "spam.test"]',
      action: { type: "reject", message: "Known spam domain" },
    });
    // Now nothing lets a sign-up in: the default rejects it.
    expect((await signUpThroughApi("anyone@example.com")).body.code).toBe("SIGN_UP_REJECTED");

    await ruleRow("block-evil-test").getByRole("button", { name: "Delete" }).click();
    await modal().getByRole("button", { name: "Delete rule" }).click();
    await ruleRow("block-evil-test").waitFor({ state: "detached" });
    expect(Object.keys(await storedRules())).toEqual(["review-plus-addresses", "$default"]);
  });
});
