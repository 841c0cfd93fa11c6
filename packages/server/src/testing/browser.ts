import { mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page, PageScreenshotOptions } from "playwright-core";
import type { ServerEnv } from "../env.ts";
import { launchChromium } from "./chromium.ts";
import { type ListeningServer, startListeningServer } from "./listening-server.ts";

/** Where browser tests save their screenshots (`e2e/artifacts/screenshots/`, kept by CI). */
export const SCREENSHOTS_DIR = fileURLToPath(
  new URL("../../../../e2e/artifacts/screenshots", import.meta.url),
);

export type BrowserPage = {
  context: BrowserContext;
  page: Page;
  /** What the page logged as an error, and its uncaught exceptions, in order. */
  errors: string[];
};

export type BrowserTest = {
  /** The Gatehouse the pages talk to, with the harness's kit (`createProject`, `request`, `deps`). */
  server: ListeningServer;
  browser: Browser;
  /** A fresh browser profile (cookies, storage) with one page open on nothing yet. */
  newPage(options?: { viewport?: { width: number; height: number } }): Promise<BrowserPage>;
  /** Closes the browser, then the server. */
  close(): Promise<void>;
};

/**
 * The one way a browser test starts: a listening Gatehouse on a fresh database, and Debian's Chromium. A test file
 * starts one in `beforeAll`, adds what it serves itself (an app, a test page), and closes it in `afterAll`.
 */
export async function startBrowserTest(options: { env?: Partial<ServerEnv> } = {}): Promise<BrowserTest> {
  const server = await startListeningServer(options.env);
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (error) {
    // A missing Chromium fails the file; the server must not outlive it.
    await server.close();
    throw error;
  }
  return {
    server,
    browser,
    async newPage({ viewport = { width: 1280, height: 820 } } = {}) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      // Under the test timeout (30 s), so that a failing step names itself, yet long enough for a step on a CI
      // machine whose two cores are busy with other test files (10 s was not: a dashboard step once took 11 s while
      // the email sandbox tests ran beside it). On this page only: pages it opens keep Playwright's default.
      page.setDefaultTimeout(20_000);
      const errors: string[] = [];
      const report = (message: string) => {
        errors.push(message);
        // Also in the test output as it happens: a browser-side failure otherwise shows only as a timeout.
        console.error("[browser]", message);
      };
      page.on("console", (message) => {
        // Failed requests the pages handle themselves (a 4xx known error) are logged by the browser too.
        if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
          report(message.text());
        }
      });
      page.on("pageerror", (error) => report(error.message));
      return { context, page, errors };
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * Saves the whole page, from the top (sticky bars sit where a visitor first sees them), as
 * `e2e/artifacts/screenshots/<name>.png`; `name` may hold a folder.
 */
export async function saveScreenshot(
  page: Page,
  name: string,
  options: Pick<PageScreenshotOptions, "animations"> = {},
): Promise<void> {
  const file = path.join(SCREENSHOTS_DIR, `${name}.png`);
  await mkdir(path.dirname(file), { recursive: true });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file, fullPage: true, ...options });
}
