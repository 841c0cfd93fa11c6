import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserTest, startBrowserTest } from "../../../server/src/testing/browser.ts";
import { clientAppConfig, type SdkPage, serveSdkPage } from "../../../server/src/testing/sdk-page.ts";
import { appsFor, uniqueEmail } from "../testing/apps.ts";

/**
 * The cookie token store in a real browser (Debian's Chromium): the API runs on one local server, the page and an
 * esbuild bundle of the SDK on another. Cookies must survive a reload, and a sign-out in one tab must show in the
 * other through the cookie poll.
 */
const PASSWORD = "browser password 1";

const ENTRY = `
import { GatehouseClientApp } from "@gatehouse/js";
const config = JSON.parse(document.getElementById("config").textContent);
const app = new GatehouseClientApp({ ...config, tokenStore: "cookie", redirectMethod: "none" });
window.gatehouse = {
  app,
  latest: "pending",
  async signIn(email, password) {
    const result = await app.signInWithCredential({ email, password, noRedirect: true });
    return result.status;
  },
  async email() {
    return (await app.getUser())?.primaryEmail ?? null;
  },
  watch() {
    const watched = app.watchUser();
    const update = () => {
      const snapshot = watched.getSnapshot();
      if (snapshot.status === "ok") window.gatehouse.latest = snapshot.data?.primaryEmail ?? null;
    };
    watched.subscribe(update);
    update();
  },
};
`;

let session: BrowserTest | undefined;
let page: SdkPage | undefined;
let email = "";

beforeAll(async () => {
  session = await startBrowserTest();
  const gh = session.server;
  const project = await gh.createProject("Browser tests");
  const apps = appsFor(gh, project);
  email = uniqueEmail("browser");
  await apps.server().createUser({ primaryEmail: email, password: PASSWORD, primaryEmailVerified: true });

  page = await serveSdkPage({
    entry: ENTRY,
    config: clientAppConfig(gh, project),
  });
}, 120_000);

afterAll(async () => {
  await page?.close();
  await session?.close();
});

describe("cookie token store in Chromium", () => {
  it("stays signed in across a reload, and a sign-out in one tab shows in the other", async () => {
    const { context, page: first } = await session!.newPage();
    await first.goto(`${page!.url}/`);
    await first.waitForFunction(() => "gatehouse" in window);
    expect(await first.evaluate(([e, p]) => (window as any).gatehouse.signIn(e, p), [email, PASSWORD])).toBe(
      "ok",
    );
    expect(await first.evaluate(() => (window as any).gatehouse.email())).toBe(email);

    const cookies = await context.cookies();
    expect(cookies.map((cookie) => cookie.name).sort()).toEqual(
      expect.arrayContaining(["stack-access", expect.stringMatching(/^stack-refresh-/)]),
    );
    const refreshCookie = cookies.find((cookie) => cookie.name.startsWith("stack-refresh-"))!;
    // About a year, as the reference SDK sets it.
    expect(refreshCookie.expires * 1000 - Date.now()).toBeGreaterThan(364 * 24 * 3600 * 1000);

    await first.reload();
    await first.waitForFunction(() => "gatehouse" in window);
    expect(await first.evaluate(() => (window as any).gatehouse.email())).toBe(email);

    const second = await context.newPage();
    await second.goto(`${page!.url}/`);
    await second.waitForFunction(() => "gatehouse" in window);
    await second.evaluate(() => (window as any).gatehouse.watch());
    await second.waitForFunction((e) => (window as any).gatehouse.latest === e, email);

    await first.evaluate(() => (window as any).gatehouse.app.signOut());
    // The second tab's cookie poll (every 100 ms) sees the cookies go and its watcher shows "signed out".
    await second.waitForFunction(() => (window as any).gatehouse.latest === null, undefined, {
      timeout: 10_000,
    });
    expect(await second.evaluate(() => (window as any).gatehouse.email())).toBeNull();
    await context.close();
  });
});
