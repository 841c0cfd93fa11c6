import type { GatehouseAdminApp, MetricsResponse } from "@gatehouse/js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenRefreshEvent } from "../../packages/server/src/features/activity/analytics.ts";
import { getRenderedConfig } from "../../packages/server/src/features/projects/config-store.ts";
import { issueTokens } from "../../packages/server/src/features/sessions/service.ts";
import { createUser } from "../../packages/server/src/features/users/service.ts";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  ownerWithProject,
  screenshot,
  startDashboard,
} from "./test-support.ts";

/**
 * The Metrics page in the browser: a project with users, sign-in methods and token refreshes from three countries,
 * the page's totals, chart figures, sign-in methods and country table checked against GET /internal/metrics, the
 * anonymous toggle, and screenshots light and dark.
 */
let env: DashboardEnv;
let page: Page;
let projectId: string;
let admin: () => Promise<GatehouseAdminApp>;
const owner = "metrics-owner@example.com";
const ADDRESSES = { GB: "81.2.69.142", DE: "5.9.0.1", US: "8.8.8.8" };

/** A user of the project with a session, and a token refresh from `ip`, recorded the way the refresh route does. */
async function activeUser(input: Parameters<typeof createUser>[3], ip: string | null) {
  const { deps } = env.gatehouse;
  const config = await getRenderedConfig(deps, projectId);
  const user = await createUser(deps.db, projectId, config, input, deps.hooks);
  await issueTokens(deps, projectId, user, config);
  if (ip) deps.activity.record(tokenRefreshEvent({ projectId, sessionId: crypto.randomUUID(), user, ip }));
  return user;
}

async function cellValues(testId: string): Promise<Record<string, number>> {
  const rows = await page
    .getByTestId(testId)
    .locator("tr")
    .evaluateAll((trs) =>
      trs.map((tr) => [
        tr.querySelector("th")?.textContent ?? "",
        Number(tr.querySelector("td")?.textContent),
      ]),
    );
  return Object.fromEntries(rows);
}

async function statValue(testId: string): Promise<number> {
  return Number(await page.getByTestId(testId).locator("[data-value]").getAttribute("data-value"));
}

/** The page's figures against the API's answer. */
async function expectPageToShow(metrics: MetricsResponse) {
  await page.getByTestId("daily-active-chart").locator(".recharts-line-curve").waitFor();
  expect(await statValue("metric-total-users")).toBe(metrics.total_users);
  expect(await statValue("metric-mau")).toBe(metrics.auth_overview.mau);
  expect(await statValue("metric-active-today")).toBe(metrics.daily_active_users.at(-1)!.activity);
  expect(await statValue("metric-verified")).toBe(metrics.auth_overview.verified_users);
  expect(await statValue("metric-anonymous")).toBe(metrics.auth_overview.anonymous_users);
  expect(await cellValues("daily-users-chart-data")).toEqual(
    Object.fromEntries(metrics.daily_users.map((point) => [point.date, point.activity])),
  );
  expect(await cellValues("daily-active-chart-data")).toEqual(
    Object.fromEntries(metrics.daily_active_users.map((point) => [point.date, point.activity])),
  );
  expect(await cellValues("login-methods-data")).toEqual(
    Object.fromEntries(metrics.login_methods.map((entry) => [entry.method, entry.count])),
  );
  const countries = await page
    .getByTestId("countries-table")
    .locator("tbody tr")
    .evaluateAll((rows) =>
      rows.map((row) => [
        (row as HTMLElement).dataset.country,
        Number(row.querySelector("[data-value]")?.getAttribute("data-value")),
      ]),
    );
  expect(Object.fromEntries(countries)).toEqual(metrics.users_by_country);
}

beforeAll(async () => {
  env = await startDashboard();
  page = await env.newPage();
  projectId = await ownerWithProject(env, page, owner, "Metrics project");
  const api = await ownerApi(env, owner);
  admin = async () => adminAppOf(await api.project(projectId));
  await activeUser(
    { primaryEmail: "ada@example.com", primaryEmailVerified: true, displayName: "Ada" },
    ADDRESSES.GB,
  );
  await activeUser(
    { primaryEmail: "bo@example.com", passwordHash: "$argon2id$stand-in", displayName: "Bo" },
    ADDRESSES.GB,
  );
  await activeUser({ primaryEmail: "cy@example.com", otpAuthEnabled: true, displayName: "Cy" }, ADDRESSES.DE);
  await activeUser(
    { primaryEmail: "di@example.com", primaryEmailVerified: true, displayName: "Di" },
    ADDRESSES.US,
  );
  await activeUser({ displayName: "Quiet" }, null);
  await activeUser({ isAnonymous: true }, ADDRESSES.US);
  await env.gatehouse.deps.activity.flush();
});
afterAll(() => env?.close());

describe("the Metrics page", () => {
  it("shows the API's figures as totals, charts and a country table, light and dark", async () => {
    const metrics = await (await admin()).getMetrics();
    // The figures the project was given, so that the page is compared with something that means something.
    expect(metrics.total_users).toBe(5);
    expect(metrics.users_by_country).toEqual({ GB: 2, DE: 1, US: 1 });
    expect(metrics.auth_overview.mau).toBe(4);

    await page.getByRole("link", { name: "Metrics" }).click();
    await page.waitForURL(/\/metrics$/);
    await expectPageToShow(metrics);
    await expect
      .poll(() =>
        page.getByTestId("countries-table").locator("tbody tr").first().getAttribute("data-country"),
      )
      .toBe("GB");
    await screenshot(page, "metrics-light");

    const lightStroke = await page.locator(".recharts-line-curve").first().getAttribute("stroke");
    await page.getByTestId("theme-toggle").click();
    await expect
      .poll(() => page.locator(".recharts-line-curve").first().getAttribute("stroke"))
      .not.toBe(lightStroke);
    await expectPageToShow(metrics);
    await screenshot(page, "metrics-dark");
    await page.getByTestId("theme-toggle").click();
  });

  it("counts anonymous users when the toggle says so", async () => {
    const withAnonymous = await (await admin()).getMetrics({ includeAnonymous: true });
    expect(withAnonymous.total_users).toBe(6);
    await page.getByRole("switch", { name: "Include anonymous users" }).click();
    await expect.poll(() => statValue("metric-total-users")).toBe(6);
    await expectPageToShow(withAnonymous);
  });
});
