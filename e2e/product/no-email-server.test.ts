import { randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveScreenshot } from "../../packages/server/src/testing/browser.ts";
import { launchChromium } from "../../packages/server/src/testing/chromium.ts";
import { createOwnDatabase, type OwnDatabase } from "./postgres-database.ts";
import { dashboardUser, type ProductProcess, QUICK_START, startProduct } from "./product-process.ts";

/**
 * A newcomer's first hour with no email server at all: the README's `npm start` on a fresh data directory (on the
 * PostgreSQL pass, a fresh database of its own), development mode, no GATEHOUSE_SMTP_URL. The owner signs up to the
 * dashboard and verifies their own address from what the server kept for them: the development inbox on the
 * account settings page, and the line the server logged with the same link.
 */
const postgresUrl = process.env.DATABASE_URL;
const PASSWORD = "correct horse battery staple";

let product: ProductProcess;
let browser: Browser;
let database: OwnDatabase | null = null;

beforeAll(async () => {
  if (postgresUrl) database = await createOwnDatabase(postgresUrl);
  // Vitest's global setup ran the build before this file started.
  product = await startProduct({ command: QUICK_START, env: () => database?.serverEnv() ?? {} });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await database?.drop();
});

describe(`the first hour with no email server (${postgresUrl ? "PostgreSQL" : "embedded database"})`, () => {
  it("takes a new owner through their own email verification from the development inbox", async () => {
    const ownerEmail = `owner-${randomBytes(4).toString("hex")}@first-hour.test`;
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${product.baseUrl}/`);
    await page.waitForURL(/\/handler\/sign-up/);
    await page.getByLabel("E-mail", { exact: true }).fill(ownerEmail);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill(PASSWORD);
    await page.getByLabel("Repeat password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("Let's create your first project").waitFor();

    // The account settings page says the address is not verified, and holds the mail that would verify it.
    await page.goto(`${product.baseUrl}/handler/account-settings`);
    await page.getByText("Not verified").first().waitFor();
    const inbox = page.getByTestId("dev-inbox");
    await inbox.getByText(/^Verify your email/).waitFor();
    const link = inbox.getByRole("link", { name: "Open the verification link" });
    const href = (await link.getAttribute("href")) ?? "";
    expect(href.startsWith(`${product.baseUrl}/handler/email-verification?code=`)).toBe(true);
    // The server's log carries the same link, for an owner who is not signed in or prefers the terminal.
    expect(product.log()).toContain(`to ${ownerEmail}; open ${href}`);
    await saveScreenshot(page, "account-settings-dev-inbox");

    await link.click();
    await page.getByRole("button", { name: "Verify e-mail" }).click();
    await page.getByText("Thank you, your e-mail address is verified.").waitFor();
    await page.goto(`${product.baseUrl}/handler/account-settings`);
    await page.getByText("Verified", { exact: true }).first().waitFor();
    await context.close();

    expect((await dashboardUser(product, ownerEmail))?.primaryEmailVerified).toBe(true);
    expect(product.serverErrors()).toEqual([]);
  });
});
