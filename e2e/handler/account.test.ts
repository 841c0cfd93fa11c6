import { GatehouseClientApp } from "@gatehouse/js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, screenshot, startDemo, totpFor, uniqueEmail } from "./test-support.ts";

/**
 * Account settings in the browser: profile, e-mails, password, sessions, API keys, notifications, two-factor
 * authentication (and the MFA page at the next sign-in), and deleting the account. Each change is checked on the
 * server.
 */
let demo: Demo;

beforeAll(async () => {
  demo = await startDemo({ allowUserApiKeys: true, clientUserDeletionEnabled: true });
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${demo.url}/handler/sign-in`);
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByRole("textbox", { name: "Password", exact: true }).fill(password);
  await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
}

function section(page: Page, name: string) {
  return page.locator("section", { has: page.getByRole("heading", { name, exact: true }) });
}

describe("account settings in the browser", () => {
  const email = uniqueEmail("sam");
  const password = "account password 1";
  const newPassword = "account password 2";
  let userId = "";

  beforeAll(async () => {
    userId = await demo.createUser(email, password, { displayName: "Sam Rivera" });
  });

  it("edits the profile, e-mails, password, sessions, API keys and notifications", async () => {
    const { context, page, errors } = await demo.newPage();
    await signIn(page, email, password);
    await page.waitForURL(`${demo.url}/`);
    // A second session elsewhere, to revoke from the list.
    const other = await demo.server.createSession({ userId });
    await page.goto(`${demo.url}/handler/account-settings`);
    await page.getByRole("heading", { name: "Profile", exact: true }).waitFor();

    const profile = section(page, "Profile");
    await profile.getByLabel("Display name").fill("Sam R.");
    await profile.getByRole("button", { name: "Save" }).click();
    await profile.getByRole("button", { name: "Saved" }).waitFor();
    expect((await demo.server.getUser(userId))?.displayName).toBe("Sam R.");

    const emails = section(page, "E-mails");
    const second = uniqueEmail("sam-work");
    await emails.getByLabel("New e-mail address").fill("nope");
    await emails.getByRole("button", { name: "Add e-mail" }).click();
    await emails.getByText("Enter a valid e-mail address.").waitFor();
    await emails.getByLabel("New e-mail address").fill(second);
    await emails.getByRole("button", { name: "Add e-mail" }).click();
    await emails.getByText("Verification e-mail sent.").waitFor();
    await emails.getByRole("list").getByText(second).waitFor();
    const channels = await (await demo.server.getUser(userId))!.listContactChannels();
    expect(channels.map((channel) => [channel.value, channel.isVerified]).sort()).toEqual(
      [
        [email, true],
        [second, false],
      ].sort(),
    );
    expect((await demo.latestEmail(second)).subject).toMatch(/verify/i);

    const security = section(page, "Security");
    await security.getByRole("button", { name: "Change password" }).click();
    await security.getByLabel("Current password").fill("not my password");
    await security.getByLabel("New password").fill(newPassword);
    await security.getByLabel("Repeat password").fill(newPassword);
    await screenshot(page, "account-settings-password");
    await security.getByRole("button", { name: "Change password" }).click();
    await security.getByText("The current password is not correct.").waitFor();
    await security.getByLabel("Current password").fill(password);
    await security.getByRole("button", { name: "Change password" }).click();
    await security.getByText("Your password has been changed.").waitFor();
    const client = new GatehouseClientApp({
      projectId: demo.project.id,
      baseUrl: demo.apiUrl,
      publishableClientKey: demo.project.publishableClientKey,
      tokenStore: "memory",
      redirectMethod: "none",
      noAutomaticPrefetch: true,
    });
    expect(
      (await client.signInWithCredential({ email, password: newPassword, noRedirect: true })).status,
    ).toBe("ok");

    // The password change ended the other sessions; make a fresh one to revoke from the list.
    const sessions = section(page, "Active sessions");
    await page.reload();
    await sessions.getByRole("list").waitFor();
    const before = await (await demo.server.getUser(userId))!.getActiveSessions();
    expect(before.length).toBeGreaterThan(1);
    const revocable = sessions.getByRole("button", { name: "Sign out this session" });
    const count = await revocable.count();
    expect(count).toBe(before.length - 1);
    await revocable.first().click();
    await expect.poll(() => revocable.count()).toBe(count - 1);
    expect((await (await demo.server.getUser(userId))!.getActiveSessions()).length).toBe(before.length - 1);
    expect(other.refreshToken).toBeTruthy();

    const keys = section(page, "API keys");
    await keys.getByRole("button", { name: "Create API key" }).click();
    await keys.getByText("This field is required.").waitFor();
    await keys.getByLabel("Description").fill("Deploy script");
    await keys.getByRole("button", { name: "Create API key" }).click();
    const value = await keys.getByTestId("new-api-key").textContent();
    expect(value).toBeTruthy();
    await keys.getByRole("list", { name: "API keys" }).getByText("Deploy script").waitFor();
    await screenshot(page, "account-settings-api-key");
    const [key] = await (await demo.server.getUser(userId))!.listApiKeys();
    expect(key?.description).toBe("Deploy script");
    expect(typeof key?.value === "object" && value?.endsWith(key.value.lastFour)).toBe(true);
    await keys.getByRole("button", { name: "Revoke" }).click();
    await keys.getByText("Revoked").waitFor();
    expect((await (await demo.server.getUser(userId))!.listApiKeys())[0]?.isValid()).toBe(false);

    const notifications = section(page, "Notifications");
    const marketing = notifications.getByRole("switch", { name: "Marketing" });
    await marketing.click();
    await expect.poll(() => marketing.getAttribute("aria-checked")).toBe("false");
    const categories = await (await demo.server.getUser(userId))!.listNotificationCategories();
    expect(categories.find((category) => category.name === "Marketing")?.enabled).toBe(false);
    expect(await notifications.getByRole("switch", { name: "Transactional" }).isDisabled()).toBe(true);

    expect(errors).toEqual([]);
    await context.close();
  });

  it("turns on two-factor authentication with a QR code, then asks for a code at sign-in", async () => {
    const { context, page, errors } = await demo.newPage();
    await signIn(page, email, newPassword);
    await page.waitForURL(`${demo.url}/`);
    await page.goto(`${demo.url}/handler/account-settings#security`);
    const security = section(page, "Security");
    await security.getByRole("button", { name: "Turn on" }).first().click();
    await security.getByRole("img", { name: "QR code to set up two-factor authentication" }).waitFor();
    await screenshot(page, "account-settings-mfa-setup");
    const secret = (await security.getByTestId("totp-secret").textContent()) ?? "";
    await security.getByLabel("Authentication code").fill("000000");
    await security.getByRole("button", { name: "Confirm and turn on" }).click();
    const wrongOrRight = await security
      .getByText(/That code is not right|Two-factor authentication is now on/)
      .textContent();
    if (wrongOrRight?.startsWith("That code")) {
      await security.getByLabel("Authentication code").fill(totpFor(secret));
      await security.getByRole("button", { name: "Confirm and turn on" }).click();
    }
    await security.getByText("Two-factor authentication is now on.").waitFor();
    expect((await demo.server.getUser(userId))?.isMultiFactorRequired).toBe(true);

    await page.getByRole("button", { name: "Account menu" }).click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.goto(`${demo.url}/protected`);
    await page.waitForURL(/\/handler\/sign-in/);
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill(newPassword);
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/\/handler\/mfa/);
    await page.getByRole("heading", { name: "Two-factor authentication" }).waitFor();
    await screenshot(page, "mfa");
    await page.getByLabel("Authentication code").fill(totpFor(secret, Date.now() - 120_000));
    await page.getByText("That code is not right. Check your authenticator app and try again.").waitFor();
    await screenshot(page, "mfa-wrong-code");
    await page.getByLabel("Authentication code").fill(totpFor(secret));
    // Back where the visitor was going before sign-in asked for the second factor.
    await page.waitForURL(`${demo.url}/protected`);
    await expect(page.getByTestId("user-email").textContent()).resolves.toBe(email);

    await page.goto(`${demo.url}/handler/account-settings#security`);
    await section(page, "Security").getByRole("button", { name: "Turn off" }).click();
    await section(page, "Security")
      .getByText("Ask for a code from an authenticator app when you sign in.")
      .waitFor();
    expect((await demo.server.getUser(userId))?.isMultiFactorRequired).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("deletes the account after typing the confirmation", async () => {
    const { context, page, errors } = await demo.newPage();
    await signIn(page, email, newPassword);
    await page.waitForURL(`${demo.url}/`);
    await page.goto(`${demo.url}/handler/account-settings#delete-account`);
    const danger = section(page, "Delete account");
    await danger.getByRole("button", { name: "Delete my account" }).click();
    await danger.getByLabel("Type DELETE to confirm").fill("delete");
    await danger.getByRole("button", { name: "Delete my account" }).click();
    await danger.getByText("Type DELETE to confirm", { exact: true }).last().waitFor();
    expect(await demo.server.getUser(userId)).not.toBeNull();
    await danger.getByLabel("Type DELETE to confirm").fill("DELETE");
    await screenshot(page, "account-settings-delete");
    await danger.getByRole("button", { name: "Delete my account" }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.getByRole("button", { name: "Create an account" }).waitFor();
    expect(await demo.server.getUser(userId)).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  });
});
