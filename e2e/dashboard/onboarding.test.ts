import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  PASSWORD,
  screenshot,
  signUpInBrowser,
  startDashboard,
} from "./test-support.ts";

let env: DashboardEnv;
let page: Page;

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1360, height: 860 };

/**
 * `name`-light/-dark on the desktop and on a phone. With `reloadUntil` each theme is chosen the way a visitor's
 * choice arrives, by a reload (then `reloadUntil` is waited for), so @gatehouse/react's components, which read the
 * theme when they render, show it too; without it the theme is switched in place, for what a reload would lose
 * (the keys shown once).
 */
async function screenshotsLightDarkPhone(name: string, reloadUntil?: Locator): Promise<void> {
  const setTheme = async (theme: "light" | "dark") => {
    await page.evaluate((value) => {
      document.documentElement.dataset.theme = value;
      localStorage.setItem("gatehouse-dashboard-theme", value);
    }, theme);
    if (!reloadUntil) return;
    await page.reload();
    await page.waitForFunction((value) => document.documentElement.dataset.theme === value, theme);
    await reloadUntil.waitFor();
  };
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    for (const theme of ["light", "dark"] as const) {
      await setTheme(theme);
      await screenshot(page, `${name}-${viewport === PHONE ? "phone" : "desktop"}-${theme}`);
    }
  }
  await page.setViewportSize(DESKTOP);
  await setTheme("light");
}

beforeAll(async () => {
  env = await startDashboard();
  page = await env.newPage();
});
afterAll(() => env?.close());

describe("dashboard: first run", () => {
  it("sends a first visitor at / to sign-up, and keeps the API's own 404s", async () => {
    const api = await fetch(`${env.baseUrl}/api/v1/nothing-here`);
    expect(api.status).toBe(404);
    expect(await api.text()).toContain("Gatehouse's API");
    await page.goto(`${env.baseUrl}/`);
    await page.waitForURL(/\/handler\/sign-up\?after_auth_return_to=/);
    await page.getByRole("heading", { name: "Create your account" }).waitFor();
    await screenshotsLightDarkPhone("01-sign-up", page.getByRole("heading", { name: "Create your account" }));
    await page.goto(`${env.baseUrl}/handler/sign-in`);
    await screenshot(page, "01-sign-in");
  });

  it("refuses a wrong password with a message", async () => {
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.getByLabel("E-mail", { exact: true }).fill("nobody@example.com");
    await page.getByRole("textbox", { name: "Password", exact: true }).fill("wrong password 123");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("Wrong e-mail or password").waitFor();
    expect(new URL(page.url()).pathname).toBe("/handler/sign-in");
  });

  it("goes from sign-up to the first project's keys", async () => {
    const email = "first-run@example.com";
    await signUpInBrowser(env, page, email);
    const firstProject = page.getByText("Let's create your first project");
    await firstProject.waitFor();
    await screenshotsLightDarkPhone("02-onboarding", firstProject);
    await page.locator('input[name="displayName"]').fill("Acme web");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByTestId("keys-once").waitFor();
    const publishable = await page.getByTestId("copy-publishable-client-key").locator("code").textContent();
    const secret = await page.getByTestId("copy-secret-server-key").locator("code").textContent();
    expect(publishable).toMatch(/^pck_/);
    expect(secret).toMatch(/^ssk_/);
    const projectId = (await page.getByTestId("copy-project-id").locator("code").textContent())!;

    // Beside the keys: a .env per framework, with the names `gatehouse init` writes, and one button to copy it.
    const tabs = page.getByRole("tablist", { name: "Your app's framework" });
    const envText = () => page.getByTestId("env-text").textContent();
    expect(await tabs.getByRole("tab", { selected: true }).textContent()).toBe("React (Vite)");
    expect(await envText()).toBe(
      [
        `VITE_STACK_PROJECT_ID=${projectId}`,
        `VITE_STACK_PUBLISHABLE_CLIENT_KEY=${publishable}`,
        `VITE_STACK_API_URL=${env.baseUrl}`,
        `STACK_SECRET_SERVER_KEY=${secret}`,
      ].join("\n"),
    );
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: env.baseUrl });
    await page.getByRole("button", { name: "Copy .env" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${await envText()}\n`);
    await screenshot(page, "03-onboarding-keys");
    await tabs.getByRole("tab", { name: "Next.js" }).click();
    expect(await envText()).toContain(`NEXT_PUBLIC_STACK_PROJECT_ID=${projectId}\n`);
    expect(await envText()).toContain(`NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY=${publishable}\n`);
    // Arrow keys move along the tabs.
    await page.keyboard.press("ArrowRight");
    expect(await tabs.getByRole("tab", { selected: true }).textContent()).toBe("Node");
    expect(await envText()).toContain(`STACK_PROJECT_ID=${projectId}\nSTACK_PUBLISHABLE_CLIENT_KEY=`);
    await page.keyboard.press("ArrowRight");
    expect(await tabs.getByRole("tab", { selected: true }).textContent()).toBe("Plain JS");
    expect(await envText()).toContain(`projectId: "${projectId}"`);
    // A browser's code never gets the secret key.
    expect(await envText()).not.toContain(secret!);
    await page.getByRole("button", { name: "Copy snippet" }).waitFor();
    await tabs.getByRole("tab", { name: "React (Vite)" }).click();
    await screenshotsLightDarkPhone("03-onboarding-keys");

    const owner = await ownerApi(env, email);
    const project = await owner.project(projectId);
    expect(project.displayName).toBe("Acme web");
    const keys = await adminAppOf(project).listInternalApiKeys();
    expect(keys).toHaveLength(1);
    expect(publishable!.endsWith(keys[0]!.publishableClientKey!.lastFour)).toBe(true);

    // The keys work: the new project answers a client with them.
    const current = await fetch(`${env.baseUrl}/api/v1/projects/current`, {
      headers: {
        "x-stack-project-id": projectId,
        "x-stack-access-type": "client",
        "x-stack-publishable-client-key": publishable!,
      },
    });
    expect(current.status).toBe(200);

    await page.getByRole("button", { name: "Go to the project" }).click();
    await page.waitForURL(new RegExp(`/projects/${projectId}$`));
    await page.getByRole("heading", { name: "Acme web" }).waitFor();
    // The overview hands over what an app needs: its project id and API URL in a ready-to-paste snippet.
    expect(await page.getByTestId("setup-snippet").textContent()).toContain(`projectId: "${projectId}"`);
    await page.getByText(/No users yet/).waitFor();
    await screenshot(page, "04-overview");
  });

  it("ticks the getting-started checklist from the project's state", async () => {
    const projectId = new URL(page.url()).pathname.split("/")[2]!;
    const checklist = page.getByTestId("getting-started");
    const done = async () =>
      (
        await checklist
          .locator("li.done")
          .evaluateAll((items) => items.map((item) => item.getAttribute("data-step")))
      )
        .sort()
        .join(",");
    await checklist.getByText("0 of 4 done").waitFor();
    await screenshotsLightDarkPhone("04-overview-checklist", checklist.getByText("0 of 4 done"));

    const owner = await ownerApi(env, "first-run@example.com");
    const admin = adminAppOf(await owner.project(projectId));
    await (await admin.getProject()).update({
      config: { domains: [{ domain: "https://app.example.com", handlerPath: "/handler" }] },
    });
    await admin.createUser({ primaryEmail: "demo-visitor@example.com" });
    await page.reload();
    await checklist.getByText("2 of 4 done").waitFor();
    expect(await done()).toBe("demo,domain");

    // The teammate step leads to the team's page in account settings, which leads back.
    await checklist.getByRole("link", { name: /Invite to the team/ }).click();
    await page.waitForURL(/\/handler\/account-settings\?team=/);
    await page.getByLabel("E-mail of the person to invite").fill("teammate@example.com");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await page.getByText("Invitation sent to teammate@example.com.").waitFor();
    await page.getByRole("link", { name: "← Back to the dashboard" }).click();
    await page.waitForURL(new RegExp(`/projects/${projectId}$`));
    await checklist.getByText("3 of 4 done").waitFor();
    expect(await done()).toBe("demo,domain,teammate");
  });

  it("answers an unknown dashboard address with a 404 page and the way back", async () => {
    const projectPath = new URL(page.url()).pathname;
    await page.goto(`${env.baseUrl}${projectPath}/no-such-page`);
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    expect(await page.getByTestId("not-found").textContent()).toContain(`${projectPath}/no-such-page`);
    expect(await page.title()).toContain("Page not found");
    await page.getByRole("link", { name: "Go to the project's overview" }).click();
    await page.waitForURL(`${env.baseUrl}${projectPath}`);
    await page.goto(`${env.baseUrl}/nothing/here`);
    await page.getByTestId("not-found").waitFor();
    await screenshot(page, "06-not-found");
    await page.getByRole("link", { name: "Back to your projects" }).click();
    await page.waitForURL(/\/projects\/[^/]+$/);
  });

  it("shows a renamed project under its new name in the project switcher", async () => {
    const projectPath = new URL(page.url()).pathname;
    await page.goto(`${env.baseUrl}${projectPath}/settings`);
    await page.locator('input[name="projectName"]').fill("Acme renamed");
    await page.getByRole("button", { name: "Save", exact: true }).first().click();
    await page.getByTestId("project-switcher").getByText("Acme renamed").waitFor();
    await page.getByTestId("project-switcher").click();
    await page.getByRole("menuitem", { name: "Acme renamed" }).waitFor();
    await page.keyboard.press("Escape");
    // Back to the old name, which the tests below expect.
    await page.locator('input[name="projectName"]').fill("Acme web");
    await page.getByRole("button", { name: "Save", exact: true }).first().click();
    await page.getByTestId("project-switcher").getByText("Acme web").waitFor();
    await page.goto(`${env.baseUrl}${projectPath}`);
    await page.getByRole("heading", { name: "Acme web" }).waitFor();
  });

  it("creates a second project and switches between them", async () => {
    await page.getByTestId("project-switcher").click();
    await page.getByRole("menuitem", { name: "Create project" }).click();
    await page.waitForURL(/\/new-project$/);
    await page.locator('input[name="displayName"]').fill("Second app");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByTestId("keys-once").waitFor();
    await page.getByRole("button", { name: "Go to the project" }).click();
    await page.getByRole("heading", { name: "Second app" }).waitFor();
    await page.getByTestId("project-switcher").click();
    await screenshot(page, "05-project-switcher");
    await page.getByRole("menuitem", { name: "Acme web" }).click();
    await page.getByRole("heading", { name: "Acme web" }).waitFor();
  });

  it("signs out from the user button and comes back through sign-in to the page asked for", async () => {
    const projectPath = new URL(page.url()).pathname;
    await page.getByRole("button", { name: "Account menu" }).click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await page.waitForURL(/\/handler\/sign-in/);
    await page.goto(`${env.baseUrl}${projectPath}`);
    await page.waitForURL(/\/handler\/sign-in\?after_auth_return_to=/);
    await page.getByLabel("E-mail", { exact: true }).fill("first-run@example.com");
    await page.getByRole("textbox", { name: "Password", exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${env.baseUrl}${projectPath}`);
    await page.getByRole("heading", { name: "Acme web" }).waitFor();
  });
});
