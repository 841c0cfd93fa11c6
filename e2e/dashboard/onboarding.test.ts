import type { Page } from "playwright-core";
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

beforeAll(async () => {
  env = await startDashboard();
  page = await env.newPage();
});
afterAll(() => env?.close());

describe("dashboard: first run", () => {
  it("serves the sign-in page at / and keeps the API's own 404s", async () => {
    const api = await fetch(`${env.baseUrl}/api/v1/nothing-here`);
    expect(api.status).toBe(404);
    expect(await api.text()).toContain("Gatehouse's API");
    await page.goto(`${env.baseUrl}/`);
    await page.waitForURL(/\/handler\/sign-in/);
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
    await page.getByText("Let's create your first project").waitFor();
    await screenshot(page, "02-onboarding");
    await page.locator('input[name="displayName"]').fill("Acme web");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByTestId("keys-once").waitFor();
    const publishable = await page.getByTestId("copy-publishable-client-key").locator("code").textContent();
    const secret = await page.getByTestId("copy-secret-server-key").locator("code").textContent();
    expect(publishable).toMatch(/^pck_/);
    expect(secret).toMatch(/^ssk_/);
    await screenshot(page, "03-onboarding-keys");

    const projectId = (await page.getByTestId("copy-project-id").locator("code").textContent())!;
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
