import { AxeBuilder } from "@axe-core/playwright";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  ownerWithProject,
  PASSWORD,
  startDashboard,
  tabTo,
} from "./test-support.ts";

/**
 * Issue 22 item 1: every dashboard page and every handler page passes axe-core with no serious or critical
 * finding, light and dark; titles tell the pages apart; a team is created, opened and deleted with the keyboard
 * alone; a bad input shows words, not the API's text.
 */

let env: DashboardEnv;
let page: Page;
let projectId: string;
let userId: string;
let teamId: string;
const email = "a11y-owner@example.com";

/** The project pages, from layout.tsx's NAV and app.tsx's routes (ids filled in once known). */
const projectPages = () => [
  "",
  "metrics",
  "payments",
  "payments/customers",
  "payments/transactions",
  "users",
  `users/${userId}`,
  "teams",
  `teams/${teamId}`,
  "permissions",
  "auth-methods",
  "sign-up-rules",
  "domains",
  "keys",
  "email",
  "sent-emails",
  "email-templates",
  "webhooks",
  "settings",
];

const SIGNED_OUT_HANDLER_PAGES = ["sign-in", "sign-up", "forgot-password"];
const SIGNED_IN_HANDLER_PAGES = ["account-settings"];

async function settled(target: Page): Promise<void> {
  await target.waitForLoadState("load");
  await target
    .locator('[data-testid="loading"], [aria-busy="true"]')
    .first()
    .waitFor({ state: "detached", timeout: 15_000 })
    .catch(() => {});
  await target.locator("h1, h2").first().waitFor();
  // Entrance animations and transitions finish, so colours are measured as they end up.
  await target.waitForFunction(() =>
    document
      .getAnimations()
      .every(
        (animation) =>
          animation.playState !== "running" || animation.effect?.getTiming().iterations === Infinity,
      ),
  );
}

async function setTheme(target: Page, theme: "light" | "dark"): Promise<void> {
  await target.evaluate((value) => localStorage.setItem("gatehouse-dashboard-theme", value), theme);
}

/** axe's serious and critical findings on the page as it is now, one line each: rule, target, summary. */
async function seriousViolations(target: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page: target })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .flatMap((violation) =>
      violation.nodes.map(
        (node) =>
          `${violation.id} (${violation.impact}) at ${node.target.join(" ")}: ${node.failureSummary?.split("\n").slice(0, 2).join(" ")}`,
      ),
    );
}

beforeAll(async () => {
  env = await startDashboard();
  page = await env.newPage();
  projectId = await ownerWithProject(env, page, email, "Access project");
  const owner = await ownerApi(env, email);
  const admin = adminAppOf(await owner.project(projectId));
  userId = (await admin.createUser({ primaryEmail: "reader@example.com", displayName: "Screen Reader" })).id;
  teamId = (await admin.createTeam({ displayName: "Readers" })).id;
});
afterAll(() => env?.close());

describe("accessibility (axe-core)", () => {
  for (const theme of ["light", "dark"] as const) {
    it(`dashboard pages have no serious or critical findings, ${theme}`, { timeout: 240_000 }, async () => {
      await setTheme(page, theme);
      const findings: string[] = [];
      const titles = new Map<string, string>();
      for (const section of projectPages()) {
        const response = await page.goto(
          `${env.baseUrl}/projects/${projectId}${section ? `/${section}` : ""}`,
        );
        expect(response?.ok(), section).toBe(true);
        await settled(page);
        expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
        for (const line of await seriousViolations(page)) findings.push(`/${section}: ${line}`);
        titles.set(section, await page.title());
      }
      // A dialog too (the shared Modal): named by its title, its field labelled.
      await page.goto(`${env.baseUrl}/projects/${projectId}/teams`);
      await settled(page);
      await page.getByRole("button", { name: "Create team" }).click();
      await page.getByRole("dialog", { name: "Create team" }).waitFor();
      await settled(page);
      for (const line of await seriousViolations(page)) findings.push(`/teams (dialog): ${line}`);
      await page.keyboard.press("Escape");
      expect(findings, findings.join("\n")).toEqual([]);
      // Every page has its own title, naming the project: all the pages that do not, listed at once.
      const seen = new Map<string, string>();
      const badTitles: string[] = [];
      for (const [section, title] of titles) {
        if (!title.includes("Access project"))
          badTitles.push(`/${section}: "${title}" does not name the project`);
        else if (seen.has(title))
          badTitles.push(`/${section}: "${title}" is also /${seen.get(title)}'s title`);
        seen.set(title, section);
      }
      expect(badTitles, badTitles.join("\n")).toEqual([]);
    });

    it(`handler pages have no serious or critical findings, ${theme}`, { timeout: 120_000 }, async () => {
      const findings: string[] = [];
      await setTheme(page, theme);
      for (const name of SIGNED_IN_HANDLER_PAGES) {
        await page.goto(`${env.baseUrl}/handler/${name}`);
        await settled(page);
        for (const line of await seriousViolations(page)) findings.push(`/handler/${name}: ${line}`);
      }
      const visitor = await env.newPage();
      await visitor.goto(`${env.baseUrl}/handler/sign-in`);
      await setTheme(visitor, theme);
      for (const name of SIGNED_OUT_HANDLER_PAGES) {
        await visitor.goto(`${env.baseUrl}/handler/${name}`);
        await settled(visitor);
        expect(await visitor.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
        for (const line of await seriousViolations(visitor)) findings.push(`/handler/${name}: ${line}`);
      }
      await visitor.context().close();
      expect(findings, findings.join("\n")).toEqual([]);
    });
  }
});

describe("the email template editor (axe-core)", () => {
  it("has no serious or critical findings: its code's scroll region is reachable by keyboard", async () => {
    await page.goto(`${env.baseUrl}/projects/${projectId}/email-templates`);
    await page.getByTestId("templates-table").getByRole("link", { name: "Email Verification" }).click();
    await page.getByTestId("email-preview").waitFor();
    await page.getByTestId("code-editor").waitFor();
    // The preview is a sandboxed frame (no scripts), which axe cannot enter: checked here without it.
    await page.evaluate(() => {
      for (const frame of document.querySelectorAll("iframe")) frame.remove();
    });
    const findings = await seriousViolations(page);
    expect(findings, findings.join("\n")).toEqual([]);
  });
});

describe("the API reference (axe-core)", () => {
  for (const theme of ["light", "dark"] as const) {
    it(`has no serious or critical findings, ${theme}`, async () => {
      const reader = await env.newPage();
      await reader.emulateMedia({ colorScheme: theme });
      const response = await reader.goto(`${env.baseUrl}/api/v1/docs`);
      expect(response?.ok()).toBe(true);
      await reader.getByRole("heading", { name: "Gatehouse API reference" }).waitFor();
      const findings = await seriousViolations(reader);
      await reader.context().close();
      expect(findings, findings.join("\n")).toEqual([]);
    });
  }
});

describe("keyboard only", () => {
  it("creates a team, opens it and deletes it with Tab, Enter and Escape", async () => {
    await page.goto(`${env.baseUrl}/projects/${projectId}/teams`);
    await settled(page);
    await page.getByTestId("teams-table").waitFor();
    await page.locator("body").focus();

    // The dialog opens with the focus on its field; Escape closes it from there and the focus is back.
    await tabTo(page, (element) => element.textContent?.trim() === "Create team");
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Create team" });
    await dialog.waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("name")))
      .toBe("teamName");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Create team");

    // Tab stays inside the dialog.
    await page.keyboard.press("Enter");
    await dialog.waitFor();
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press("Tab");
      expect(await dialog.evaluate((node) => node.contains(document.activeElement))).toBe(true);
    }
    await page.keyboard.press("Shift+Tab");
    expect(await dialog.evaluate((node) => node.contains(document.activeElement))).toBe(true);

    // An empty name is refused in words before anything is sent.
    await dialog.locator('input[name="teamName"]').focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => dialog.locator(".field-error").textContent()).toBe("Give the team a name.");
    await page.keyboard.type("Keyboard crew");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/teams\/[^/]+$/);
    await page.getByRole("heading", { name: /Keyboard crew/ }).waitFor();
    await expect.poll(() => page.title()).toContain("Keyboard crew");

    // Back to the list: the new team's row is a link, opened with Enter.
    await page.goto(`${env.baseUrl}/projects/${projectId}/teams`);
    await settled(page);
    await page.getByRole("link", { name: "Keyboard crew" }).waitFor();
    await page.locator("body").focus();
    await tabTo(
      page,
      (element) => element.tagName === "A" && element.textContent?.trim() === "Keyboard crew",
    );
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/teams\/[^/]+$/);
    await page.getByRole("heading", { name: /Keyboard crew/ }).waitFor();

    // Delete, confirming by typing the name.
    await page.locator("body").focus();
    await tabTo(page, (element) => element.textContent?.trim() === "Delete team");
    await page.keyboard.press("Enter");
    const confirm = page.getByRole("dialog", { name: /Delete Keyboard crew/ });
    await confirm.waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("name")))
      .toBe("confirm");
    await page.keyboard.type("Keyboard crew");
    await tabTo(
      page,
      (element) => element.textContent?.trim() === "Delete team" && !!element.closest("[role=dialog]"),
    );
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/teams$/);
    await page.getByTestId("teams-table").waitFor();
    expect(await page.getByRole("link", { name: "Keyboard crew" }).count()).toBe(0);
  });

  it("picks a member with the arrow keys and Enter in the member picker", async () => {
    await page.goto(`${env.baseUrl}/projects/${projectId}/teams/${teamId}`);
    await settled(page);
    const picker = page.getByRole("combobox", { name: /Add a member/ });
    await picker.focus();
    await page.keyboard.type("Screen");
    await expect.poll(() => picker.getAttribute("aria-expanded")).toBe("true");
    const listId = await picker.getAttribute("aria-controls");
    expect(await page.locator(`#${listId}`).getAttribute("role")).toBe("listbox");
    await page.keyboard.press("ArrowDown");
    const active = await picker.getAttribute("aria-activedescendant");
    expect(await page.locator(`[id="${active}"]`).getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("Enter");
    await page.getByTestId("members").getByText("Screen Reader").waitFor();
  });
});

describe("errors in words", () => {
  it("a bad email in the handler's sign-up form says so next to the field, without the API's text", async () => {
    const visitor = await env.newPage();
    await visitor.goto(`${env.baseUrl}/handler/sign-up`);
    await visitor.getByLabel("E-mail", { exact: true }).fill("not-an-email");
    await visitor.getByRole("textbox", { name: "Password", exact: true }).fill(PASSWORD);
    await visitor.getByLabel("Repeat password").fill(PASSWORD);
    await visitor.getByRole("button", { name: "Create account" }).click();
    await expect
      .poll(async () => (await visitor.locator("form").textContent()) ?? "")
      .toMatch(/valid e-mail/i);
    const text = (await visitor.locator("form").textContent()) ?? "";
    expect(text).not.toMatch(/POST|\/api\/|status \d{3}|body\./);
    await visitor.context().close();
  });

  it("a refused value in the dashboard shows words, not the API's text", async () => {
    await page.goto(`${env.baseUrl}/projects/${projectId}/teams`);
    await settled(page);
    await page.getByRole("button", { name: "Create team" }).click();
    const dialog = page.getByRole("dialog", { name: "Create team" });
    // Longer than any display name the API takes: the server's SCHEMA_ERROR, worded by the dashboard.
    await dialog.locator('input[name="teamName"]').fill("x".repeat(5000));
    await dialog.getByRole("button", { name: "Create team" }).click();
    const error = dialog.locator(".field-error");
    await error.waitFor();
    const text = (await error.textContent()) ?? "";
    expect(text).not.toMatch(/POST|\/api\/|\/teams|status \d{3}|body\.|Too big/);
    expect(text).toMatch(/Team name must be at most \d+ characters long/);
  });
});
