import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, linkFrom, screenshot, startDemo, uniqueEmail } from "./test-support.ts";

/**
 * Password accounts through the handler pages of the demo app: sign up, verify the e-mail from the outbox, sign
 * out, sign in (wrong then right password), come back to a protected page, and reset a forgotten password.
 */
let demo: Demo;

beforeAll(async () => {
  demo = await startDemo();
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

async function serverUser(email: string) {
  const users = await demo.server.listUsers({ query: email });
  return users.find((user) => user.primaryEmail === email) ?? null;
}

describe("password accounts in the browser", () => {
  const email = uniqueEmail("pat");
  const password = "correct horse 1";
  const newPassword = "battery staple 2";

  it("signs up with a password, checking the form first", async () => {
    const { context, page, errors } = await demo.newPage();
    await page.goto(`${demo.url}/`);
    await page.getByRole("button", { name: "Create an account" }).click();
    await page.waitForURL(/\/handler\/sign-up/);
    await page.getByRole("heading", { name: "Create your account" }).waitFor();
    await screenshot(page, "sign-up");

    await page.getByLabel("E-mail", { exact: true }).fill("not-an-email");
    await page.getByRole("textbox", { name: "Password", exact: true }).fill("short");
    await page.getByLabel("Repeat password").fill("different");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("Enter a valid e-mail address.").waitFor();
    await page.getByText("Use at least 8 characters.").waitFor();
    await page.getByText("Passwords do not match").waitFor();
    await screenshot(page, "sign-up-errors");
    expect(await serverUser("not-an-email")).toBeNull();

    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill(password);
    await page.getByLabel("Repeat password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.getByTestId("welcome").getByText(`Welcome back, ${email}`).waitFor();
    await screenshot(page, "home-signed-in");

    const user = await serverUser(email);
    expect(user?.primaryEmailVerified).toBe(false);
    expect(user?.hasPassword).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("verifies the e-mail with the link from the outbox", async () => {
    const { context, page, errors } = await demo.newPage();
    const { text } = await demo.latestEmail(email, /verify/i);
    await page.goto(linkFrom(text));
    await page.getByRole("heading", { name: "Verify your e-mail" }).waitFor();
    await screenshot(page, "email-verification");
    await page.getByRole("button", { name: "Verify e-mail" }).click();
    await page.getByRole("heading", { name: "E-mail verified" }).waitFor();
    await screenshot(page, "email-verified");
    expect((await serverUser(email))?.primaryEmailVerified).toBe(true);

    // The same link a second time: the code is spent, and the page says so.
    await page.goto(linkFrom(text));
    await page.getByRole("button", { name: "Verify e-mail" }).click();
    await page.getByText(/already been used|already verified/).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("signs out, is sent to sign-in from a protected page, and signs in again", async () => {
    const { context, page, errors } = await demo.newPage();
    await page.goto(`${demo.url}/handler/sign-in`);
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill(password);
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${demo.url}/`);
    const userId = (await serverUser(email))!.id;
    expect((await demo.server.createSession({ userId })).accessToken).toBeTruthy();

    await page.getByRole("button", { name: "Account menu" }).click();
    await screenshot(page, "user-button-menu");
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Create an account" }).waitFor();
    expect((await context.cookies()).filter((cookie) => cookie.name.startsWith("stack-refresh"))).toEqual([]);

    await page.goto(`${demo.url}/protected`);
    await page.waitForURL(/\/handler\/sign-in\?after_auth_return_to=%2Fprotected/);
    await screenshot(page, "sign-in");
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill("wrong password");
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("Wrong e-mail or password").waitFor();
    await screenshot(page, "sign-in-wrong-password");

    await page.getByRole("textbox", { name: "Password", exact: true }).fill(password);
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${demo.url}/protected`);
    await expect(page.getByTestId("user-email").textContent()).resolves.toBe(email);
    await expect(page.getByTestId("user-verified").textContent()).resolves.toBe("Yes");
    await screenshot(page, "protected-page");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("resets a forgotten password", async () => {
    const { context, page, errors } = await demo.newPage();
    await page.goto(`${demo.url}/handler/sign-in`);
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.getByRole("heading", { name: "Reset your password" }).waitFor();
    await screenshot(page, "forgot-password");
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByRole("heading", { name: "Check your e-mail" }).waitFor();
    await screenshot(page, "forgot-password-sent");

    const { text } = await demo.latestEmail(email, /reset/i);
    await page.goto(linkFrom(text));
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await screenshot(page, "password-reset");
    await page.getByLabel("New password").fill(newPassword);
    await page.getByLabel("Repeat password").fill(`${newPassword}x`);
    await page.getByRole("button", { name: "Reset password" }).click();
    await page.getByText("Passwords do not match").waitFor();
    await page.getByLabel("Repeat password").fill(newPassword);
    await page.getByRole("button", { name: "Reset password" }).click();
    await page.getByRole("heading", { name: "Password changed" }).waitFor();
    await screenshot(page, "password-reset-done");

    // The server now takes the new password and refuses the old one.
    const client = demo.server;
    const old = await client.signInWithCredential({ email, password, noRedirect: true });
    expect(old.status).toBe("error");
    const fresh = await client.signInWithCredential({ email, password: newPassword, noRedirect: true });
    expect(fresh.status).toBe("ok");

    await page.goto(linkFrom(text));
    await page.getByText(/already been used/).waitFor();
    await screenshot(page, "password-reset-used-link");
    expect(errors).toEqual([]);
    await context.close();
  });
});
