import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, screenshot, startDemo, uniqueEmail } from "./test-support.ts";

/**
 * Passkeys with Chromium's virtual authenticator (DevTools protocol): register one in account settings, sign out,
 * and sign in with it.
 */
let demo: Demo;

beforeAll(async () => {
  demo = await startDemo({ passkeyEnabled: true });
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

/** A platform authenticator that holds discoverable credentials and says yes without asking. */
async function addVirtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

describe("passkeys in the browser", () => {
  it("registers a passkey in account settings and signs in with it", async () => {
    const email = uniqueEmail("piper");
    const password = "passkey password 1";
    const userId = await demo.createUser(email, password, { displayName: "Piper Kim" });
    const { context, page, errors } = await demo.newPage();
    await addVirtualAuthenticator(context, page);

    await page.goto(`${demo.url}/handler/sign-in`);
    await page.getByRole("button", { name: "Sign in with a passkey" }).waitFor();
    await screenshot(page, "sign-in-with-passkey");
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill(password);
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${demo.url}/`);

    await page.goto(`${demo.url}/handler/account-settings#security`);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByText("Passkey added.").waitFor();
    await page.getByText("A passkey is registered for this account.").waitFor();
    await screenshot(page, "account-settings-passkey");
    expect((await demo.server.getUser(userId))?.passkeyAuthEnabled).toBe(true);

    await page.getByRole("button", { name: "Account menu" }).click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Create an account" }).waitFor();

    await page.goto(`${demo.url}/handler/sign-in`);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.getByText("Welcome back, Piper Kim").waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("explains a passkey sign-in the browser could not complete", async () => {
    const { context, page } = await demo.newPage();
    // An authenticator without any passkey of this site: the browser's prompt fails, and the page says so.
    await addVirtualAuthenticator(context, page);
    await page.goto(`${demo.url}/handler/sign-in`);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.locator(".gh-alert-error").waitFor();
    expect(await page.locator(".gh-alert-error").textContent()).toMatch(/passkey/i);
    await screenshot(page, "sign-in-passkey-failed");
    expect(page.url()).toBe(`${demo.url}/handler/sign-in`);
    await context.close();
  });
});
