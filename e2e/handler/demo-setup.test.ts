import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserTest, startBrowserTest } from "../../packages/server/src/testing/browser.ts";
import { buildDemo, screenshot, serveDemo } from "./test-support.ts";

/**
 * The demo (`npm run demo`) never runs against `internal`, the dashboard's own project, whose users are dashboard
 * accounts: started without a project, or with `internal`, it explains how to connect one of the owner's projects
 * and makes no request to the API.
 */
let session: BrowserTest;
let dist: string;

beforeAll(async () => {
  [session, dist] = await Promise.all([startBrowserTest(), buildDemo()]);
}, 120_000);
afterAll(() => session?.close());

describe("demo without a project", () => {
  it.each<[string, Record<string, string>]>([
    ["no project", {}],
    ["the internal project", { projectId: "internal" }],
  ])("with %s shows how to connect one, and calls no API", async (_label, injected) => {
    const site = await serveDemo(dist, { baseUrl: session.server.baseUrl, ...injected });
    try {
      const { page } = await session.newPage();
      const apiCalls: string[] = [];
      page.on("request", (request) => {
        if (request.url().includes("/api/")) apiCalls.push(request.url());
      });
      await page.goto(`${site.url}/handler/sign-up`);
      await page.getByRole("heading", { name: "Connect the demo to a project" }).waitFor();
      expect(await page.getByTestId("demo-setup").textContent()).toContain("VITE_STACK_PROJECT_ID=");
      expect(apiCalls).toEqual([]);
      if (injected.projectId === "internal") await screenshot(page, "demo-setup");
    } finally {
      await site.close();
    }
  });
});
