import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { adminAppOf, type DashboardEnv, ownerApi, ownerWithProject, startDashboard } from "./test-support.ts";

/**
 * The users page's total past the server's exact-count limit (issue 38, item 4): the server estimates it and says
 * so, and the page words it as "about N". The limit is lowered to two users here; below it the total is exact.
 */
let env: DashboardEnv;
let page: Page;
let projectId: string;
const email = "estimate-owner@example.com";

beforeAll(async () => {
  env = await startDashboard({ env: { usersExactCountLimit: 2 } });
  page = await env.newPage();
  projectId = await ownerWithProject(env, page, email, "Estimated users");
  const admin = adminAppOf(await (await ownerApi(env, email)).project(projectId));
  for (const name of ["ada", "grace", "linus", "octo"]) {
    await admin.createUser({ primaryEmail: `${name}@example.com`, primaryEmailVerified: name !== "octo" });
  }
});
afterAll(() => env?.close());

const total = () => page.getByTestId("users-total").textContent();

it('shows "about" before an estimated total, and an exact one without it', async () => {
  await page.goto(`${env.baseUrl}/projects/${projectId}/users`);
  // Four users, all signed up today, more than the two counted exactly: the estimate stays within the project's own.
  await expect.poll(total).toBe("about 4 users");
  await page.getByLabel("Email", { exact: true }).selectOption("no");
  await page.waitForURL(/verified=no/);
  await expect.poll(total).toBe("1 user matches these filters");
});
