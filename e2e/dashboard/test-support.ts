import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AdminOwnedProject, GatehouseAdminApp, GatehouseClientApp } from "@gatehouse/js";
import type { Page } from "playwright-core";
import type { ServerEnv } from "../../packages/server/src/env.ts";
import { saveScreenshot, startBrowserTest } from "../../packages/server/src/testing/browser.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

// Referenced so the admin app factory is registered in this process too.
void GatehouseAdminApp;

/**
 * The dashboard as `npm start` serves it. Vitest's global setup (e2e/build-before-tests.ts) builds it once before
 * any test file runs; this only checks the build is there.
 */
export async function buildDashboard(): Promise<void> {
  const index = join(root, "apps/dashboard/dist/index.html");
  if (!existsSync(index)) throw new Error(`No dashboard build at ${index}: run \`npm run build\``);
}

export type DashboardEnv = Awaited<ReturnType<typeof startDashboard>>;

/**
 * A real server serving the built dashboard, and a headless Chromium (the shared browser-test bootstrap,
 * testing/browser.ts).
 */
export async function startDashboard(options: { env?: Partial<ServerEnv> } = {}) {
  await buildDashboard();
  const session = await startBrowserTest(options);
  return {
    baseUrl: session.server.baseUrl,
    /** The running server's own deps, to read what it stored (e.g. the email outbox). */
    gatehouse: session.server.gatehouse,
    browser: session.browser,
    /** A desktop window unless told otherwise (the phone run asks for 390×844). */
    async newPage(viewport = { width: 1360, height: 860 }): Promise<Page> {
      const { page } = await session.newPage({ viewport });
      return page;
    },
    close: () => session.close(),
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  // Let entrance animations (toasts, modals) finish so the picture shows the page, not a transition. Endless
  // animations (spinners) are left running.
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every(
        (animation) =>
          animation.playState !== "running" || animation.effect?.getTiming().iterations === Infinity,
      ),
  );
  await saveScreenshot(page, `dashboard/${name}`);
}

export const PASSWORD = "correct horse battery staple";

/**
 * Signs a new owner up through the handler's sign-up page (@gatehouse/react's SignUp); ends on the first-run
 * page.
 */
export async function signUpInBrowser(env: DashboardEnv, page: Page, email: string): Promise<void> {
  await page.goto(`${env.baseUrl}/`);
  // A first visitor may land on sign-up directly, or on sign-in with a link to it.
  await page.waitForURL(/\/handler\/sign-(in|up)/);
  if (new URL(page.url()).pathname.endsWith("/sign-in")) {
    await page.getByRole("link", { name: "Sign up", exact: true }).click();
    await page.waitForURL(/\/handler\/sign-up/);
  }
  await page.getByRole("heading", { name: "Create your account" }).waitFor();
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByRole("textbox", { name: "Password", exact: true }).fill(PASSWORD);
  await page.getByLabel("Repeat password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  // Signed up once the handler has handed over to the dashboard's own pages.
  await page.waitForURL((url) => !url.pathname.startsWith("/handler"));
}

/** The same owner over the SDK, to check through the API what the browser changed. */
export async function ownerApi(env: DashboardEnv, email: string) {
  const client = new GatehouseClientApp({
    projectId: "internal",
    baseUrl: env.baseUrl,
    tokenStore: "memory",
    noAutomaticPrefetch: true,
  });
  const result = await client.signInWithCredential({ email, password: PASSWORD, noRedirect: true });
  if (result.status === "error") throw result.error;
  const user = (await client.getUser({ or: "throw" }))!;
  return {
    user,
    async project(id: string): Promise<AdminOwnedProject> {
      const projects = (await user.listOwnedProjects!()) as AdminOwnedProject[];
      const found = projects.find((project) => project.id === id);
      if (!found) throw new Error(`project ${id} not owned`);
      return found;
    },
  };
}

/** Creates an owner with a project through the UI's first run, and returns the project id. */
export async function ownerWithProject(
  env: DashboardEnv,
  page: Page,
  email: string,
  name = "Acme",
): Promise<string> {
  await signUpInBrowser(env, page, email);
  await page.locator('input[name="displayName"]').fill(name);
  await page.getByRole("button", { name: "Create project" }).click();
  // Either the keys or the form's error: a failed creation names its reason instead of timing out.
  const keys = page.getByTestId("keys-once");
  await keys.or(page.locator(".field-error")).first().waitFor();
  if (!(await keys.isVisible())) {
    throw new Error(
      `Creating the project failed: ${await page.locator(".field-error").first().textContent()}`,
    );
  }
  await page.getByRole("button", { name: "Go to the project" }).click();
  await page.waitForURL(/\/projects\/[^/]+$/);
  return decodeURIComponent(new URL(page.url()).pathname.split("/")[2]!);
}

export function adminAppOf(project: AdminOwnedProject): GatehouseAdminApp {
  return project.app as unknown as GatehouseAdminApp;
}

/**
 * Presses Tab until the focused element matches, at most `limit` times: how a keyboard user reaches a control.
 * `matches` runs in the page, so it may use only its argument and the DOM.
 */
export async function tabTo(page: Page, matches: (element: Element) => boolean, limit = 80): Promise<void> {
  const passed: string[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab");
    const [found, label] = await page.evaluate((source) => {
      const active = document.activeElement;
      const label = active ? `${active.tagName} ${active.textContent?.trim().slice(0, 30) ?? ""}` : "nothing";
      // biome-ignore lint/security/noGlobalEval: a predicate handed over from the test, run in the page
      return [active ? (eval(source) as (element: Element) => boolean)(active) : false, label] as const;
    }, `(${matches.toString()})`);
    if (found) return;
    passed.push(label);
  }
  throw new Error(`Tab never reached the element; it went through: ${passed.join(" | ")}`);
}
