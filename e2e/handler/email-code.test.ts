import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, linkFrom, screenshot, startDemo, uniqueEmail } from "./test-support.ts";

/** Sign-in with a one-time code by e-mail (the code typed in, and the magic link), and a new account made by it. */
let demo: Demo;

beforeAll(async () => {
  demo = await startDemo({ magicLinkEnabled: true });
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

/** The 6 characters the e-mail shows (the subject ends with them). */
function typedCode(subject: string): string {
  const match = /([0-9A-Z]{6})\s*$/.exec(subject);
  if (!match) throw new Error(`No code in subject ${subject}`);
  return match[1]!;
}

describe("e-mail code sign-in in the browser", () => {
  it("signs in an existing user with the code from the e-mail, after a wrong one", async () => {
    const email = uniqueEmail("olive");
    const userId = await demo.createUser(email, "olive password 1", { displayName: "Olive" });
    const { context, page, errors } = await demo.newPage();
    await page.goto(`${demo.url}/handler/sign-in`);
    await page.getByRole("tab", { name: "E-mail code" }).click();
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await screenshot(page, "sign-in-email-code");
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByText(`We sent a sign-in code to ${email}`).waitFor();

    const { subject } = await demo.latestEmail(email);
    const code = typedCode(subject);
    const wrong = code === "AAAAAA" ? "BBBBBB" : "AAAAAA";
    await page.getByLabel("Sign-in code").fill(wrong);
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("This code is not valid. Check it and try again.").waitFor();
    await screenshot(page, "sign-in-email-code-wrong");

    await page.getByLabel("Sign-in code").fill(code);
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.getByText("Welcome back, Olive").waitFor();

    // The server added the one-time-code method to the verified account, and holds a session for it.
    const user = await demo.server.getUser(userId);
    expect(user?.otpAuthEnabled).toBe(true);
    expect((await user!.getActiveSessions()).length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("signs up a new user through the magic link of the e-mail", async () => {
    const email = uniqueEmail("max");
    const { context, page, errors } = await demo.newPage();
    await page.goto(`${demo.url}/handler/sign-in`);
    await page.getByRole("tab", { name: "E-mail code" }).click();
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByText(`We sent a sign-in code to ${email}`).waitFor();
    await screenshot(page, "sign-in-email-code-sent");

    const { text } = await demo.latestEmail(email);
    await page.goto(linkFrom(text));
    await page.getByText("Continue to sign in with the link from your e-mail.").waitFor();
    await screenshot(page, "magic-link-callback");
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.getByText(`Welcome back, ${email}`).waitFor();

    const [user] = await demo.server.listUsers({ query: email });
    expect(user?.primaryEmail).toBe(email);
    expect(user?.primaryEmailVerified).toBe(true);

    // The link is spent now.
    await page.goto(linkFrom(text));
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("This link has already been used.").waitFor();
    await screenshot(page, "magic-link-used");
    expect(errors).toEqual([]);
    await context.close();
  });
});
