import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, screenshot, startDemo, uniqueEmail } from "./test-support.ts";

/**
 * The handler pages nobody reaches in the flows of the other files (wrong links, the error page, pages on a phone),
 * what they say, and the keyboard: focus order, the user menu, Escape.
 */
let demo: Demo;

beforeAll(async () => {
  demo = await startDemo();
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

describe("handler pages in the browser", () => {
  it("explains links without a code, an unknown page and the error page", async () => {
    const { context, page, errors } = await demo.newPage();
    await page.goto(`${demo.url}/`);
    await page.getByRole("button", { name: "Create an account" }).waitFor();
    await screenshot(page, "home");

    await page.goto(`${demo.url}/handler/email-verification`);
    await page.getByText("This link is incomplete: it has no code.", { exact: false }).waitFor();
    await screenshot(page, "email-verification-no-code");

    await page.goto(`${demo.url}/handler/password-reset?code=${"a".repeat(45)}`);
    await page.getByText("This link is not valid.").waitFor();
    await screenshot(page, "password-reset-bad-link");

    await page.goto(`${demo.url}/handler/oauth-callback`);
    await page.getByText("there is nothing to do here", { exact: false }).waitFor();
    await screenshot(page, "oauth-callback");

    await page.goto(`${demo.url}/handler/mfa`);
    await page.getByText("This sign-in attempt has expired. Sign in again.").waitFor();
    await screenshot(page, "mfa-no-attempt");

    await page.goto(`${demo.url}/handler/no-such-page`);
    await page.getByText("This page does not exist.").waitFor();
    await screenshot(page, "not-found");

    const details = encodeURIComponent(JSON.stringify({}));
    await page.goto(
      `${demo.url}/handler/error?error=server_error&errorCode=SIGN_UP_NOT_ENABLED&message=x&details=${details}`,
    );
    await page.getByText("This project does not accept new sign-ups.").waitFor();
    await page.getByText("Error code: SIGN_UP_NOT_ENABLED").waitFor();
    await screenshot(page, "error");

    await page.goto(`${demo.url}/handler/cli-auth-confirm`);
    await page.getByText("This page needs a login code.", { exact: false }).waitFor();
    await page.goto(`${demo.url}/handler/team-invitation?code=${"b".repeat(45)}`);
    await page.getByText("Sign in or create an account to accept the invitation.").waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("names each page in the document title and gives the app's own title back on leaving", async () => {
    const email = uniqueEmail("titles");
    await demo.createUser(email, "titles password 1");
    const { context, page, errors } = await demo.newPage();
    await page.goto(`${demo.url}/`);
    await page.getByRole("button", { name: "Create an account" }).waitFor();
    // apps/demo/index.html's title, which the handler must not leave behind.
    const appTitle = await page.title();
    expect(appTitle).toBe("Gatehouse demo");
    const titleOf = async (path: string) => {
      // A full load: the title starts again as index.html's, so a match is this page's.
      await page.goto(`${demo.url}/handler/${path}`);
      await expect.poll(() => page.title()).toMatch(/ · Acme Notes$/);
      return page.title();
    };
    expect(await titleOf("sign-in")).toBe("Sign in · Acme Notes");
    expect(await titleOf("sign-up")).toBe("Create your account · Acme Notes");
    expect(await titleOf("forgot-password")).toBe("Reset your password · Acme Notes");
    expect(await titleOf("no-such-page")).toBe("Page not found · Acme Notes");

    // Moving between handler pages inside the app, then out of the handler, leaves the app's title.
    await page.goto(`${demo.url}/handler/sign-in`);
    await expect.poll(() => page.title()).toBe("Sign in · Acme Notes");
    await page.getByRole("link", { name: "Sign up" }).click();
    await page.waitForURL(/\/handler\/sign-up/);
    await expect.poll(() => page.title()).toBe("Create your account · Acme Notes");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Home" }).click();
    await page.waitForURL(`${demo.url}/`);
    await expect.poll(() => page.title()).toBe(appTitle);

    await page.goto(`${demo.url}/handler/sign-in`);
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill("titles password 1");
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${demo.url}/`);
    await expect.poll(() => page.title()).toBe(appTitle);
    expect(await titleOf("account-settings")).toBe("Account settings · Acme Notes");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows the sign-in pages on a phone", async () => {
    const { context, page, errors } = await demo.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${demo.url}/handler/sign-in`);
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).waitFor();
    await screenshot(page, "mobile-sign-in");
    const card = await page.locator(".gh-card").boundingBox();
    expect(card!.width).toBeLessThanOrEqual(390);
    await page.goto(`${demo.url}/handler/sign-up`);
    await page.getByRole("button", { name: "Create account" }).waitFor();
    await screenshot(page, "mobile-sign-up");

    const email = uniqueEmail("phone");
    await demo.createUser(email, "phone password 1", { displayName: "Robin Vale" });
    await page.goto(`${demo.url}/handler/sign-in`);
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill("phone password 1");
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.goto(`${demo.url}/handler/account-settings`);
    await page.getByRole("heading", { name: "Profile", exact: true }).waitFor();
    await screenshot(page, "mobile-account-settings");

    // The sign-out page, held while the server is asked to end the session.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/api/v1/auth/sessions/current", async (route) => {
      await held;
      await route.continue();
    });
    await page.setViewportSize({ width: 1280, height: 820 });
    await page.goto(`${demo.url}/handler/sign-out`);
    await page.getByText("Signing you out…").waitFor();
    await screenshot(page, "sign-out");
    release();
    await page.waitForURL(`${demo.url}/`);
    await page.getByRole("button", { name: "Create an account" }).waitFor();
    await page.unroute("**/api/v1/auth/sessions/current");

    // Signed in already: sign-in offers to go on, or to switch accounts.
    await page.goto(`${demo.url}/handler/sign-in`);
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill("phone password 1");
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.goto(`${demo.url}/handler/sign-in`);
    await page.getByText("You are already signed in").waitFor();
    await page.getByText("Signed in as Robin Vale").waitFor();
    await screenshot(page, "sign-in-already-signed-in");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("works with the keyboard alone", async () => {
    const email = uniqueEmail("keys");
    await demo.createUser(email, "keyboard password 1", { displayName: "Kit Keys" });
    const { context, page, errors } = await demo.newPage();
    await page.goto(`${demo.url}/handler/sign-in`);
    const passwordTab = page.locator(".gh-card").getByRole("tab", { name: "Password" });
    await passwordTab.focus();
    // The arrow keys move between the tabs; only the selected one is in the Tab order.
    await page.keyboard.press("ArrowRight");
    await expect
      .poll(() => page.getByRole("tab", { name: "E-mail code" }).getAttribute("aria-selected"))
      .toBe("true");
    await page.getByRole("button", { name: "Send code" }).waitFor();
    await page.keyboard.press("ArrowLeft");
    await expect.poll(() => passwordTab.getAttribute("aria-selected")).toBe("true");
    expect(await passwordTab.evaluate((element) => element === document.activeElement)).toBe(true);
    // Then: e-mail, "Forgot password?", password, show password, the submit button.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe("email");
    await page.keyboard.type(email);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe("password");
    await page.keyboard.type("keyboard password 1");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${demo.url}/`);

    const menuButton = page.getByRole("button", { name: "Account menu" });
    await menuButton.focus();
    await page.keyboard.press("Enter");
    const settings = page.getByRole("menuitem", { name: "Account settings" });
    await settings.waitFor();
    expect(await settings.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.press("ArrowDown");
    expect(
      await page
        .getByRole("menuitem", { name: "Sign out" })
        .evaluate((element) => element === document.activeElement),
    ).toBe(true);
    await page.keyboard.press("Escape");
    await expect.poll(() => page.getByRole("menu").count()).toBe(0);
    expect(await menuButton.evaluate((element) => element === document.activeElement)).toBe(true);
    // The focus ring shows on keyboard focus.
    const outline = await menuButton.evaluate((element) => getComputedStyle(element).outlineStyle);
    expect(outline).toBe("solid");
    await page.keyboard.press("ArrowDown");
    await page.getByRole("menuitem", { name: "Account settings" }).waitFor();
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/handler\/account-settings/);
    expect(errors).toEqual([]);
    await context.close();
  });
});
