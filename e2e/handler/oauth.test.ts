import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devProviderEmail } from "../../packages/server/src/features/oauth/dev-provider.ts";
import { type Demo, screenshot, startDemo, uniqueEmail } from "./test-support.ts";

/**
 * OAuth sign-in through the server's development OpenID provider (a "shared" provider without credentials): the
 * demo's button, the provider's page, the callback page of the handler, and back to the app signed in.
 */
let demo: Demo;

beforeAll(async () => {
  demo = await startDemo({ oauthProviders: [{ id: "github", type: "shared" }] });
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

describe("OAuth sign-in in the browser", () => {
  it("signs up with the provider and lands on the page the visitor wanted", async () => {
    const email = uniqueEmail("octo");
    const { context, page, errors } = await demo.newPage();
    await page.goto(`${demo.url}/protected`);
    await page.waitForURL(/\/handler\/sign-in\?after_auth_return_to=/);
    await screenshot(page, "sign-in-with-oauth");
    await page.getByRole("button", { name: "Continue with GitHub" }).click();

    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${demo.url}/protected`);
    // The development provider claims the typed address marked, so the test account shares no one's address.
    await expect(page.getByTestId("user-email").textContent()).resolves.toBe(devProviderEmail(email));
    // The callback stripped code and state from the address before moving on.
    expect(page.url()).not.toMatch(/code=|state=/);

    const [user] = await demo.server.listUsers({ query: email });
    expect(user?.oauthProviders.map((provider) => provider.id)).toEqual(["github"]);
    // The development provider's address proves nothing, so it is neither verified nor used to sign in.
    expect(user?.primaryEmailVerified).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows the callback's failure alert and message when the code cannot be used", async () => {
    const { context, page } = await demo.newPage();
    const alerts: string[] = [];
    page.on("dialog", (dialog) => {
      alerts.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${demo.url}/handler/oauth-callback?code=${"0".repeat(64)}&state=nobody-started-this`);
    await page.getByText("Error signing in during OAuth callback. Please try again.").waitFor();
    await screenshot(page, "oauth-callback-error");
    expect(page.url()).toBe(`${demo.url}/handler/oauth-callback`);
    await context.close();
  });
});
