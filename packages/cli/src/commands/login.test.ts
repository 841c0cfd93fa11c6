import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliAuthAttempts } from "../../../server/src/features/cli-auth/schema.ts";
import { type BrowserTest, startBrowserTest } from "../../../server/src/testing/browser.ts";
import { TEST_INTERNAL_KEYS } from "../../../server/src/testing/harness.ts";
import { expireRows } from "../../../server/src/testing/time.ts";
import { runCli, startCli, tempDir } from "../test-support.ts";

let session: BrowserTest;
const email = "cli-owner@login.example";
const password = "cli login password 1";

beforeAll(async () => {
  session = await startBrowserTest();
  const created = await session.server.request("/api/v1/users", {
    method: "POST",
    headers: {
      "x-stack-project-id": "internal",
      "x-stack-access-type": "server",
      "x-stack-secret-server-key": TEST_INTERNAL_KEYS.secretServerKey,
    },
    body: { primary_email: email, primary_email_verified: true, password },
  });
  expect(created.status).toBe(201);
});
afterAll(() => session?.close());

describe("gatehouse login", () => {
  it("completes through the confirm page in Chromium and stores the session with mode 0600", async () => {
    const configDir = tempDir("login");
    const env = { GATEHOUSE_CONFIG_DIR: configDir };
    const login = startCli(["login", "--no-browser", "--api-url", session.server.baseUrl], { env });
    const [url] = await login.waitForStderr(/http:\/\/\S+\/handler\/cli-auth-confirm\?login_code=[0-9a-z]+/);

    const { page } = await session.newPage();
    await page.goto(url);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill(password);
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("button", { name: "Authorize" }).click();
    await page.getByText("You are signed in on the command line").waitFor();

    const done = await login.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`Logged in to ${session.server.baseUrl} as ${email}`);
    const file = join(configDir, "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8")).logins[session.server.baseUrl].email).toBe(email);

    const whoami = await runCli(["whoami", "--api-url", session.server.baseUrl, "--json"], { env });
    expect(JSON.parse(whoami.stdout).email).toBe(email);
    const logout = await runCli(["logout", "--api-url", session.server.baseUrl], { env });
    expect(logout.code).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect((await runCli(["whoami", "--api-url", session.server.baseUrl], { env })).code).toBe(3);
  });

  it("says in words when the login request expired, with exit code 3", async () => {
    const login = startCli(["login", "--no-browser", "--api-url", session.server.baseUrl], {
      env: { GATEHOUSE_CONFIG_DIR: tempDir("expired") },
    });
    await login.waitForStderr(/Waiting for you/);
    await expireRows(session.server, cliAuthAttempts, undefined);
    const done = await login.done;
    expect(done.code).toBe(3);
    expect(done.stderr).toContain("CLI authentication request expired. Please try again");
  });
});
