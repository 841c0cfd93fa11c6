import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDemo, serveDemo } from "../handler/test-support.ts";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  ownerWithProject,
  screenshot,
  startDashboard,
} from "./test-support.ts";

/**
 * Impersonation from end to end: the owner presses Impersonate on a user's page, follows the link to their app
 * (the demo app, built with @gatehouse/react and served on its own origin as the project's trusted domain), and
 * that browser ends up signed in as the user, with the session marked as impersonation on the server.
 */
let env: DashboardEnv;
let page: Page;
let projectId: string;
let app: Awaited<ReturnType<typeof serveDemo>>;
const email = "impersonation-owner@example.com";

beforeAll(async () => {
  const [dashboard, demoDir] = await Promise.all([startDashboard(), buildDemo()]);
  env = dashboard;
  page = await env.newPage();
  projectId = await ownerWithProject(env, page, email, "Impersonation project");
  const admin = adminAppOf(await (await ownerApi(env, email)).project(projectId));
  const keys = await admin.createInternalApiKey({
    description: "demo app",
    expiresAt: new Date(Date.now() + 24 * 3600 * 1000),
    hasPublishableClientKey: true,
    hasSecretServerKey: false,
    hasSuperSecretAdminKey: false,
  });
  app = await serveDemo(demoDir, {
    baseUrl: env.baseUrl,
    projectId,
    publishableClientKey: keys.publishableClientKey,
  });
  const project = await admin.getProject();
  await project.update({ config: { domains: [{ domain: app.url, handlerPath: "/handler" }] } });
}, 180_000);
afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe("impersonation from the dashboard", () => {
  it("opens the app signed in as the user after the app's confirmation", async () => {
    const admin = adminAppOf(await (await ownerApi(env, email)).project(projectId));
    const user = await admin.createUser({ primaryEmail: "robin@example.com", displayName: "Robin Vega" });

    await page.goto(`${env.baseUrl}/projects/${projectId}/users/${user.id}`);
    await page.getByRole("heading", { name: /Robin Vega/ }).waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Impersonate" }).click();
    const link = page.getByTestId("impersonate-link");
    await link.waitFor();
    expect(await link.getAttribute("href")).toMatch(new RegExp(`^${app.url}/handler/impersonate#`));
    await screenshot(page, "38-user-impersonate");

    const [appPage] = await Promise.all([page.context().waitForEvent("page"), link.click()]);
    await appPage.getByRole("button", { name: "Continue as Robin Vega" }).click();
    await appPage.getByTestId("welcome").getByText("Welcome back, Robin Vega").waitFor();
    expect(appPage.url().startsWith(app.url)).toBe(true);
    expect(appPage.url()).not.toContain("refresh_token");

    // The server holds the session as an impersonation one, which the user page lists with its badge.
    const sessions = await user.getActiveSessions();
    expect(sessions.some((session) => session.isImpersonation)).toBe(true);
    await page.getByRole("button", { name: "Done" }).click();
    await page.reload();
    await page.getByTestId("sessions").getByText("Impersonation").waitFor();
    await appPage.close();
  });
});
