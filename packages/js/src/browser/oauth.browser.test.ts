import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devProviderEmail } from "../../../server/src/features/oauth/dev-provider.ts";
import { type BrowserTest, startBrowserTest } from "../../../server/src/testing/browser.ts";
import { clientAppConfig, type SdkPage, serveSdkPage } from "../../../server/src/testing/sdk-page.ts";
import { uniqueEmail } from "../testing/apps.ts";

/**
 * OAuth sign-in in a real browser (Debian's Chromium): the app's page (an esbuild bundle of the SDK on one local
 * server) calls signInWithOAuth, the browser goes to Gatehouse (another local server), on to the development OpenID
 * provider's sign-in form, back through Gatehouse's callback to the app's OAuth callback page, where the SDK
 * exchanges the code with the verifier it kept in a cookie.
 */

const ENTRY = `
import { GatehouseClientApp } from "@gatehouse/js";
const config = JSON.parse(document.getElementById("config").textContent);
const app = new GatehouseClientApp({ ...config, tokenStore: "cookie", redirectMethod: "window" });
window.gatehouse = {
  app,
  callback: location.pathname === "/handler/oauth-callback"
    ? app.callOAuthCallback().then(() => "done", (error) => "failed: " + error)
    : null,
  async email() {
    return (await app.getUser())?.primaryEmail ?? null;
  },
};
`;

let session: BrowserTest | undefined;
let site: SdkPage | undefined;

beforeAll(async () => {
  // The provider sends the browser to the callback URL the server builds from its public URL: a listening
  // server's is its real address.
  session = await startBrowserTest();
  const gh = session.server;
  const project = await gh.createProject("OAuth in a browser");
  await project.configure({ "auth.oauth.providers.github": { isShared: true } });

  // Every page of the app is the same shell; the script looks at the path.
  site = await serveSdkPage({
    entry: ENTRY,
    config: clientAppConfig(gh, project),
  });
}, 120_000);

afterAll(async () => {
  await site?.close();
  await session?.close();
});

const gatehouseOf = (page: Page) => page.waitForFunction(() => "gatehouse" in window);

/** Starts signInWithOAuth on the app's home page and waits for the provider's sign-in form. */
async function startAtProvider(page: Page, returnTo: string) {
  await page.goto(`${site!.url}/`);
  await gatehouseOf(page);
  // The call navigates away and never settles on this page.
  await page.evaluate((to) => {
    void (window as any).gatehouse.app.signInWithOAuth("github", { returnTo: to });
  }, returnTo);
  await page.waitForSelector('input[name="email"]');
}

describe("OAuth sign-in in Chromium", () => {
  it("signs in through the provider and lands where the app asked", async () => {
    const { context, page } = await session!.newPage();
    await startAtProvider(page, `${site!.url}/after-sign-in`);
    const email = uniqueEmail("oauth-browser");
    await page.fill('input[name="email"]', email);
    await page.click('button[value="sign-in"]');

    await page.waitForURL(`${site!.url}/after-sign-in`);
    await gatehouseOf(page);
    // The development provider claims the typed address marked, so it is no one else's.
    expect(await page.evaluate(() => (window as any).gatehouse.email())).toBe(devProviderEmail(email));
    // The verifier cookie was used up; the session is in the cookie store.
    const names = (await context.cookies(site!.url)).map((cookie) => cookie.name);
    expect(names.filter((name) => name.startsWith("stack-oauth-outer-"))).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(["stack-access", expect.stringMatching(/^stack-refresh-/)]));
    await context.close();
  });

  it("comes back to the app's error page when the user cancels at the provider", async () => {
    const { context, page } = await session!.newPage();
    await startAtProvider(page, `${site!.url}/after-sign-in`);
    await page.click('button[value="cancel"]');

    await page.waitForURL((url) => url.pathname === "/handler/error");
    const landed = new URL(page.url());
    expect(landed.searchParams.get("errorCode")).toBe("OAUTH_PROVIDER_ACCESS_DENIED");
    await gatehouseOf(page);
    expect(await page.evaluate(() => (window as any).gatehouse.email())).toBeNull();
    await context.close();
  });
});
