import { GatehouseClientApp } from "@gatehouse/js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, screenshot, startDemo, uniqueEmail } from "./test-support.ts";

/**
 * Command-line login: a CLI (the SDK's promptCliLogin, in this process) prints a link to the demo's
 * /handler/cli-auth-confirm page; the user confirms it in the browser and the CLI gets a session of theirs.
 */
let demo: Demo;

beforeAll(async () => {
  demo = await startDemo();
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

function cliApp() {
  return new GatehouseClientApp({
    projectId: demo.project.id,
    baseUrl: demo.apiUrl,
    publishableClientKey: demo.project.publishableClientKey,
    tokenStore: "memory",
    redirectMethod: "none",
    noAutomaticPrefetch: true,
  });
}

describe("command-line login in the browser", () => {
  it("confirms a command-line login after signing in, and the CLI gets the user's session", async () => {
    const email = uniqueEmail("cli");
    const password = "cli password 1";
    const userId = await demo.createUser(email, password, { displayName: "Casey Lee" });
    const cli = cliApp();
    let link = "";
    const login = cli.promptCliLogin({
      appUrl: demo.url,
      promptLink: (url) => {
        link = url;
      },
      pollIntervalMs: 200,
      maxAttempts: 300,
    });
    await expect.poll(() => link).toMatch(/\/handler\/cli-auth-confirm\?login_code=/);

    const { context, page, errors } = await demo.newPage();
    await page.goto(link);
    await page.getByText("Sign in to authorize the command-line login.").waitFor();
    await screenshot(page, "cli-auth-confirm-signed-out");
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill(password);
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();

    await page.waitForURL(/\/handler\/cli-auth-confirm\?login_code=/);
    await page.getByText("A command-line tool is asking to sign in to your account.").waitFor();
    await screenshot(page, "cli-auth-confirm");
    await page.getByRole("button", { name: "Authorize" }).click();
    await page.getByText("You are signed in on the command line. You can close this window.").waitFor();
    await screenshot(page, "cli-auth-confirm-done");

    const result = await login;
    expect(result.status).toBe("ok");
    const refreshToken = result.status === "ok" ? result.data : "";
    const asCli = new GatehouseClientApp({
      projectId: demo.project.id,
      baseUrl: demo.apiUrl,
      publishableClientKey: demo.project.publishableClientKey,
      tokenStore: { accessToken: null, refreshToken },
      redirectMethod: "none",
      noAutomaticPrefetch: true,
    });
    expect((await asCli.getUser({ or: "throw" })).id).toBe(userId);

    // The same link again: the login is done, and the page says the link no longer works.
    await page.goto(link);
    await page.getByRole("button", { name: "Authorize" }).click();
    await page.getByText("This login link is invalid or has expired.").waitFor();
    await screenshot(page, "cli-auth-confirm-invalid");
    expect(errors.filter((error) => !/400|login code/i.test(error))).toEqual([]);
    await context.close();
  });

  it("lets the user refuse, and the CLI keeps waiting", async () => {
    const email = uniqueEmail("cli-no");
    await demo.createUser(email, "cli password 2");
    const cli = cliApp();
    let link = "";
    const login = cli.promptCliLogin({
      appUrl: demo.url,
      promptLink: (url) => {
        link = url;
      },
      pollIntervalMs: 100,
      maxAttempts: 15,
    });
    await expect.poll(() => link).not.toBe("");
    const { context, page } = await demo.newPage();
    await page.goto(`${demo.url}/handler/sign-in`);
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill("cli password 2");
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.goto(link);
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.getByText("The command-line login was not authorized.").waitFor();
    const result = await login;
    expect(result.status).toBe("error");
    await context.close();
  });
});
