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

// A phone: the width of the common 6.1" screens, in CSS pixels.
const PHONE = { width: 390, height: 844 };

let env: DashboardEnv;
let page: Page;
let projectId: string;
const email = "phone-owner@example.com";

const sectionLabel = {
  permissions: "Permissions",
  "auth-methods": "Auth methods",
  domains: "Domains",
  email: "Email",
  settings: "Project settings",
} as const;

const menuButton = () => page.getByRole("button", { name: "Menu", exact: true });
const sidebar = () => page.getByTestId("sidebar");

/** Where the sidebar and the page are drawn; the sidebar, closed, must be entirely left of the screen. */
async function closedSidebarLeavesPageFree(): Promise<void> {
  await drawerSettled();
  expect(await menuButton().getAttribute("aria-expanded")).toBe("false");
  // Closed means out of sight for people and for assistive technology, not just drawn underneath.
  expect(await sidebar().getByRole("link", { name: "Users" }).isVisible()).toBe(false);
  const side = await sidebar().boundingBox();
  const content = (await page.locator("main.content").boundingBox())!;
  if (side) expect(side.x + side.width).toBeLessThanOrEqual(0);
  expect(content.x).toBe(0);
  expect(content.width).toBe(PHONE.width);
  // Nothing on the page is wider than the phone: wide tables scroll inside their cards.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
}

/** Until the drawer has finished sliding (its CSS transition), so that boxes are measured where it stops. */
async function drawerSettled(): Promise<void> {
  await page.waitForFunction(() =>
    document.getAnimations().every((animation) => animation.effect?.getTiming().iterations === Infinity),
  );
}

async function openMenu(): Promise<void> {
  await menuButton().click();
  expect(await menuButton().getAttribute("aria-expanded")).toBe("true");
  await sidebar().getByRole("link", { name: "Users" }).waitFor({ state: "visible" });
  await drawerSettled();
}

async function followMenuLink(name: string, path: RegExp): Promise<void> {
  await openMenu();
  await sidebar().getByRole("link", { name, exact: true }).click();
  await page.waitForURL(path);
  // The drawer closes on the render that follows the navigation, which can land just after the URL changes.
  await expect.poll(() => menuButton().getAttribute("aria-expanded")).toBe("false");
  // The focus moved to the page that opened, not to a link now out of sight.
  expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("MAIN");
  await page.locator('[data-testid="loading"]').first().waitFor({ state: "detached" });
}

beforeAll(async () => {
  env = await startDashboard();
  page = await env.newPage(PHONE);
  projectId = await ownerWithProject(env, page, email, "Phone project with a long name");
  const admin = adminAppOf(await (await ownerApi(env, email)).project(projectId));
  for (let i = 0; i < 3; i++) {
    await admin.createUser({ primaryEmail: `phone-user-${i}@example.com`, displayName: `Phone User ${i}` });
  }
  await admin.createTeam({ displayName: "Support" });
});
afterAll(() => env?.close());

describe("dashboard on a phone (390×844)", () => {
  it("keeps the sidebar in a menu that opens, closes with Escape and navigates", async () => {
    await page.goto(`${env.baseUrl}/projects/${projectId}`);
    await page.getByTestId("recent-users").waitFor();
    await closedSidebarLeavesPageFree();
    await screenshot(page, "40-phone-overview");

    await openMenu();
    // Opening takes the focus into the menu, to its first link.
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Overview");
    const opened = (await sidebar().boundingBox())!;
    expect(opened.x).toBe(0);
    expect(opened.width).toBeLessThan(PHONE.width);
    await screenshot(page, "41-phone-menu");

    // Escape closes it and gives the focus back to the button that opened it.
    await page.keyboard.press("Escape");
    await sidebar().getByRole("link", { name: "Users" }).waitFor({ state: "hidden" });
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Menu");
    await closedSidebarLeavesPageFree();

    await followMenuLink("Users", /\/users$/);
    await page.getByTestId("users-table").waitFor();
    await closedSidebarLeavesPageFree();
    await screenshot(page, "42-phone-users");

    await page.getByTestId("users-table").getByText("Phone User 1").click();
    await page.getByRole("heading", { name: /Phone User 1/ }).waitFor();
    await page.getByTestId("sessions").or(page.getByText("No active sessions.")).waitFor();
    await closedSidebarLeavesPageFree();
    await screenshot(page, "43-phone-user");

    await followMenuLink("Teams", /\/teams$/);
    await page.getByTestId("teams-table").getByText("Support").waitFor();
    await closedSidebarLeavesPageFree();
    await screenshot(page, "44-phone-teams");
  });

  it("looks right in dark mode too", async () => {
    await openMenu();
    await page.getByTestId("theme-toggle").click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark");
    await screenshot(page, "45-phone-menu-dark");
    // The backdrop closes the menu as well.
    await page.locator(".drawer-backdrop").click({ position: { x: PHONE.width - 20, y: PHONE.height / 2 } });
    await sidebar().getByRole("link", { name: "Users" }).waitFor({ state: "hidden" });
    await closedSidebarLeavesPageFree();
    await screenshot(page, "46-phone-teams-dark");

    await followMenuLink("Overview", new RegExp(`/projects/${projectId}$`));
    await page.getByTestId("recent-users").waitFor();
    await screenshot(page, "47-phone-overview-dark");

    await followMenuLink("Users", /\/users$/);
    await page.getByTestId("users-table").waitFor();
    await closedSidebarLeavesPageFree();
    await screenshot(page, "48-phone-users-dark");

    await followMenuLink("API keys", /\/keys$/);
    await page.getByTestId("keys-table").waitFor();
    await closedSidebarLeavesPageFree();
    await screenshot(page, "49-phone-keys-dark");
  });

  it("fits every other page on the screen, light and dark", async () => {
    const pages = [
      ["permissions", "50-phone-permissions"],
      ["auth-methods", "51-phone-auth-methods"],
      ["domains", "52-phone-domains"],
      ["email", "53-phone-email"],
      ["settings", "54-phone-settings"],
    ] as const;
    for (const [section, name] of pages) {
      await followMenuLink(sectionLabel[section], new RegExp(`/${section}$`));
      await closedSidebarLeavesPageFree();
      await screenshot(page, `${name}-dark`);
    }
    await openMenu();
    await page.getByTestId("theme-toggle").click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === "light");
    await page.keyboard.press("Escape");
    await sidebar().getByRole("link", { name: "Users" }).waitFor({ state: "hidden" });
    for (const [section, name] of pages) {
      await page.goto(`${env.baseUrl}/projects/${projectId}/${section}`);
      await page.getByRole("heading", { level: 1 }).waitFor();
      await page.locator('[data-testid="loading"]').first().waitFor({ state: "detached" });
      await closedSidebarLeavesPageFree();
      await screenshot(page, name);
    }
  });

  it("on a desktop window the sidebar is back and the menu button gone", async () => {
    await page.setViewportSize({ width: 1360, height: 860 });
    await page.goto(`${env.baseUrl}/projects/${projectId}/users`);
    await page.getByTestId("users-table").waitFor();
    expect(await menuButton().isVisible()).toBe(false);
    expect(await sidebar().getByRole("link", { name: "Users" }).isVisible()).toBe(true);
    const side = (await sidebar().boundingBox())!;
    const content = (await page.locator("main.content").boundingBox())!;
    expect(side.x).toBe(0);
    expect(content.x).toBeGreaterThanOrEqual(side.x + side.width);
  });
});
