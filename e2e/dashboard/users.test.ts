import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUuid } from "../../packages/server/src/crypto/index.ts";
import { oauthAccounts } from "../../packages/server/src/features/oauth/schema.ts";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  ownerWithProject,
  screenshot,
  startDashboard,
  tabTo,
} from "./test-support.ts";

/**
 * The users list as an owner manages it (issue 22, item 3): filters, sortable columns, the view in the URL, the
 * total, CSV export of the filter, bulk restrict and delete after a confirmation, rows that are links.
 * Screenshots light and dark, desktop and phone, of the list with filters. A user is created, opened and deleted
 * with the keyboard alone (item 1).
 */
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1360, height: 860 };

let env: DashboardEnv;
let page: Page;
let projectId: string;
let admin: ReturnType<typeof adminAppOf>;
const email = "users-owner@example.com";
const ids: Record<string, string> = {};

const table = () => page.getByTestId("users-table");
const rowEmails = () => table().locator("tbody tr .small").allTextContents();
const total = () => page.getByTestId("users-total").textContent();
const usersUrl = (query = "") => `${env.baseUrl}/projects/${projectId}/users${query}`;

async function inTheme(theme: "light" | "dark"): Promise<void> {
  await page.evaluate((value) => localStorage.setItem("gatehouse-dashboard-theme", value), theme);
  await page.reload();
  await page.waitForFunction((value) => document.documentElement.dataset.theme === value, theme);
  await table().waitFor();
}

beforeAll(async () => {
  env = await startDashboard();
  page = await env.newPage();
  projectId = await ownerWithProject(env, page, email, "Users project");
  admin = adminAppOf(await (await ownerApi(env, email)).project(projectId));
  const make = async (key: string, options: Parameters<typeof admin.createUser>[0]) => {
    ids[key] = (await admin.createUser(options)).id;
  };
  await make("ada", {
    primaryEmail: "ada@example.com",
    displayName: "Ada Lovelace",
    primaryEmailVerified: true,
    password: "correct horse battery",
  });
  await make("grace", { primaryEmail: "grace@example.com", displayName: "Grace Hopper" });
  await make("linus", { primaryEmail: "linus@example.com", primaryEmailVerified: true });
  await make("mallory", {
    primaryEmail: "mallory@example.com",
    displayName: "Mallory",
    primaryEmailVerified: true,
  });
  await (await admin.getUser(ids.mallory!))!.update({ restrictedByAdmin: true });
  await make("octo", {
    primaryEmail: "octo@example.com",
    displayName: "Octocat",
    primaryEmailVerified: true,
  });
  await env.gatehouse.deps.db.insert(oauthAccounts).values({
    projectId,
    id: randomUuid(),
    userId: ids.octo!,
    providerConfigId: "github",
    providerAccountId: "583231",
  });
});
afterAll(() => env?.close());

describe("users list", () => {
  it("shows the total and filters by verification, restriction and sign-in method, kept in the URL", async () => {
    await page.goto(usersUrl());
    await table().waitFor();
    await expect.poll(total).toBe("5 users");
    // Provider names are spelled as their owners spell them.
    await table().getByText("GitHub").waitFor();

    await page.getByLabel("Email", { exact: true }).selectOption("yes");
    await page.waitForURL(/verified=yes/);
    await expect.poll(total).toBe("4 users match these filters");
    await page.getByLabel("Restricted", { exact: true }).selectOption("no");
    await page.waitForURL(/restricted=no/);
    await expect.poll(total).toBe("3 users match these filters");
    expect((await rowEmails()).sort()).toEqual(["ada@example.com", "linus@example.com", "octo@example.com"]);

    // A reload (or a link sent to a colleague) opens the same view.
    await page.reload();
    await expect.poll(total).toBe("3 users match these filters");
    expect(await page.getByLabel("Email", { exact: true }).inputValue()).toBe("yes");

    await page.getByLabel("Sign-in method").selectOption("oauth");
    await expect.poll(rowEmails).toEqual(["octo@example.com"]);
    await page.getByLabel("Sign-in method").selectOption("password");
    await expect.poll(rowEmails).toEqual(["ada@example.com"]);
    await page.getByLabel("MFA").selectOption("yes");
    await page.getByText("No matching users").waitFor();

    // Back goes to the previous view.
    await page.goBack();
    await expect.poll(rowEmails).toEqual(["ada@example.com"]);
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect.poll(total).toBe("5 users");
    expect(new URL(page.url()).search).toBe("");

    await page.getByRole("searchbox", { name: "Search users" }).fill("hopper");
    await page.waitForURL(/q=hopper/);
    await expect.poll(rowEmails).toEqual(["grace@example.com"]);
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect.poll(total).toBe("5 users");
  });

  it("sorts by a column header button that says its order (aria-sort)", async () => {
    await page.goto(usersUrl());
    await expect.poll(total).toBe("5 users");
    const signedUp = page.locator("th", { has: page.getByTestId("sort-signed-up") });
    expect(await signedUp.getAttribute("aria-sort")).toBe("descending");
    await expect.poll(async () => (await rowEmails())[0]).toBe("octo@example.com");
    await page.getByRole("button", { name: /Signed up/ }).click();
    await page.waitForURL(/dir=asc/);
    expect(await signedUp.getAttribute("aria-sort")).toBe("ascending");
    await expect.poll(async () => (await rowEmails())[0]).toBe("ada@example.com");
    await page.getByRole("button", { name: /Last active/ }).click();
    await page.waitForURL(/sort=last_active/);
    expect(await signedUp.getAttribute("aria-sort")).toBe("none");
    const lastActive = page.locator("th", { has: page.getByTestId("sort-last-active") });
    expect(await lastActive.getAttribute("aria-sort")).toBe("descending");
  });

  it("opens a user from a real link in the row", async () => {
    await page.goto(usersUrl());
    const link = table().getByRole("link", { name: "Grace Hopper" });
    expect(await link.getAttribute("href")).toBe(`/projects/${projectId}/users/${ids.grace}`);
    await link.focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(new RegExp(`/users/${ids.grace}$`));
    await page.getByRole("heading", { name: /Grace Hopper/ }).waitFor();
  });

  it("shows a user's sessions with browser and operating system", async () => {
    const user = (await admin.getUser(ids.ada!))!;
    const { refreshToken } = await (await user.createSession()).getTokens();
    // The browser refreshes its access token: the session now knows what it runs on.
    const refreshed = await fetch(`${env.baseUrl}/api/v1/auth/oauth/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
      },
      body: `grant_type=refresh_token&refresh_token=${refreshToken}&client_id=${projectId}`,
    });
    expect(refreshed.status).toBe(200);
    // A refresh's "last used" reaches the database with the next activity batch, within a second: the page shows it
    // once it is there.
    const sessions = page.getByTestId("sessions");
    await expect
      .poll(
        async () => {
          await page.goto(usersUrl(`/${ids.ada}`));
          await sessions.waitFor();
          return sessions.getByText("Firefox on Linux").count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    expect(await sessions.locator("th").first().textContent()).toBe("Device");
  });

  it("exports the current filter as CSV", async () => {
    await page.goto(usersUrl("?verified=yes&restricted=no"));
    await expect.poll(total).toBe("3 users match these filters");
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export CSV" }).click();
    const file = await (await download).path();
    const lines = (await readFile(file, "utf8")).trim().split("\r\n");
    expect(lines[0]).toBe(
      "id,primary_email,primary_email_verified,display_name,signed_up_at,last_active_at,is_anonymous,restricted_by_admin,sign_in_methods,mfa",
    );
    expect(
      lines
        .slice(1)
        .map((line) => line.split(",")[1])
        .sort(),
    ).toEqual(["ada@example.com", "linus@example.com", "octo@example.com"]);
    expect(lines.find((line) => line.includes("octo@"))).toContain(",github,");
  });

  it("screenshots: the list with filters, light and dark, desktop and phone", async () => {
    await page.goto(usersUrl("?verified=yes&anonymous=include"));
    await expect.poll(total).toBe("4 users match these filters");
    const select = async () => {
      await table().getByRole("checkbox", { name: "Select Ada Lovelace" }).check();
      await page.getByTestId("bulk-actions").waitFor();
    };
    await inTheme("light");
    await select();
    await screenshot(page, "users-filters-desktop-light");
    await inTheme("dark");
    await select();
    await screenshot(page, "users-filters-desktop-dark");
    await page.setViewportSize(PHONE);
    await screenshot(page, "users-filters-phone-dark");
    // Nothing wider than the phone: the table scrolls inside its card.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await inTheme("light");
    await select();
    await screenshot(page, "users-filters-phone-light");
    await page.setViewportSize(DESKTOP);
  });

  it("restricts and deletes the selected users after a confirmation", async () => {
    await page.goto(usersUrl());
    await expect.poll(total).toBe("5 users");
    await table().getByRole("checkbox", { name: "Select Grace Hopper" }).check();
    await table().getByRole("checkbox", { name: "Select linus@example.com" }).check();
    const bulk = page.getByTestId("bulk-actions");
    await bulk.getByText("2 users selected").waitFor();
    await bulk.getByRole("button", { name: "Restrict" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("Restrict 2 users?").waitFor();
    // Cancelling changes nothing.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await admin.getUser(ids.grace!))?.restrictedByAdmin).toBe(false);
    await bulk.getByRole("button", { name: "Restrict" }).click();
    await dialog.getByRole("button", { name: "Restrict 2 users" }).click();
    // The two requests run side by side, so one user can be restricted before the other.
    const restricted = async (id: string) => (await admin.getUser(id))?.restrictedByAdmin;
    await expect
      .poll(async () => [await restricted(ids.grace!), await restricted(ids.linus!)])
      .toEqual([true, true]);
    expect((await admin.getUser(ids.ada!))?.restrictedByAdmin).toBe(false);
    await expect.poll(() => table().getByText("Restricted").count()).toBe(3);

    // Select all on the page, then unselect all but the two to delete.
    await table().getByRole("checkbox", { name: "Select all users on this page" }).check();
    await bulk.getByText("5 users selected").waitFor();
    await table().getByRole("checkbox", { name: "Select all users on this page" }).uncheck();
    await table().getByRole("checkbox", { name: "Select Mallory" }).check();
    await table().getByRole("checkbox", { name: "Select Octocat" }).check();
    await bulk.getByRole("button", { name: "Delete" }).click();
    await dialog.getByText("Delete 2 users?").waitFor();
    await screenshot(page, "users-bulk-delete-confirm");
    await dialog.getByRole("button", { name: "Delete 2 users" }).click();
    await expect.poll(total).toBe("3 users");
    expect(await admin.getUser(ids.mallory!)).toBeNull();
    expect(await admin.getUser(ids.octo!)).toBeNull();
    expect(await admin.getUser(ids.ada!)).not.toBeNull();
  });
});

describe("keyboard only", () => {
  /** What has the focus, as a keyboard user would find it: tag, name attribute and text. */
  const focused = () =>
    page.evaluate(() => {
      const active = document.activeElement;
      return {
        tag: active?.tagName ?? null,
        name: active?.getAttribute("name") ?? null,
        text: active?.textContent?.trim() ?? "",
        inDialog: !!active?.closest("[role=dialog]"),
      };
    });

  it("creates a user, opens it and deletes it with Tab, Enter and Escape", async () => {
    await page.goto(usersUrl());
    await table().waitFor();
    await page.locator("body").focus();

    // The dialog opens with the focus on its first field; Escape closes it, and the focus is back on the button.
    await tabTo(
      page,
      (element) => element.tagName === "BUTTON" && element.textContent?.trim() === "Create user",
    );
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Create user" });
    await dialog.waitFor();
    await expect.poll(async () => (await focused()).name).toBe("email");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await focused()).toMatchObject({ tag: "BUTTON", text: "Create user", inDialog: false });

    // Tab stays inside the dialog, round and round.
    await page.keyboard.press("Enter");
    await dialog.waitFor();
    await expect.poll(async () => (await focused()).name).toBe("email");
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press("Tab");
      expect((await focused()).inDialog).toBe(true);
    }
    await page.keyboard.press("Shift+Tab");
    expect((await focused()).inDialog).toBe(true);

    // Fill in email and name, Enter sends the form; the new user's page opens.
    await dialog.locator('input[name="email"]').focus();
    await page.keyboard.type("keys@example.com");
    await page.keyboard.press("Tab");
    expect((await focused()).name).toBe("displayName");
    await page.keyboard.type("Kit Keys");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/users\/[^/]+$/);
    await page.getByRole("heading", { name: /Kit Keys/ }).waitFor();
    await expect.poll(() => page.title()).toContain("Kit Keys");
    const id = new URL(page.url()).pathname.split("/").pop()!;
    const created = await admin.getUser(id);
    expect(created?.primaryEmail).toBe("keys@example.com");
    expect(created?.displayName).toBe("Kit Keys");

    // Back to the list by its breadcrumb, then the new row's link opens the user.
    await tabTo(page, (element) => element.tagName === "A" && element.textContent?.trim() === "← Users");
    await page.keyboard.press("Enter");
    await page.waitForURL(usersUrl());
    await table().getByRole("link", { name: "Kit Keys" }).waitFor();
    await tabTo(page, (element) => element.tagName === "A" && element.textContent?.trim() === "Kit Keys");
    await page.keyboard.press("Enter");
    await page.waitForURL(usersUrl(`/${id}`));
    await page.getByRole("heading", { name: /Kit Keys/ }).waitFor();

    // Delete: the confirmation takes the focus; Escape cancels and nothing is deleted.
    await page.locator("body").focus();
    await tabTo(
      page,
      (element) => element.tagName === "BUTTON" && element.textContent?.trim() === "Delete user",
    );
    await page.keyboard.press("Enter");
    const confirm = page.getByRole("dialog", { name: "Delete this user?" });
    await confirm.waitFor();
    await expect.poll(async () => (await focused()).inDialog).toBe(true);
    await page.keyboard.press("Escape");
    await confirm.waitFor({ state: "detached" });
    expect(await focused()).toMatchObject({ tag: "BUTTON", text: "Delete user", inDialog: false });
    expect(await admin.getUser(id)).not.toBeNull();

    await page.keyboard.press("Enter");
    await confirm.waitFor();
    await tabTo(
      page,
      (element) => element.textContent?.trim() === "Delete user" && !!element.closest("[role=dialog]"),
      10,
    );
    await page.keyboard.press("Enter");
    await page.waitForURL(usersUrl());
    await table().waitFor();
    await expect.poll(() => admin.getUser(id)).toBeNull();
    expect(await table().getByRole("link", { name: "Kit Keys" }).count()).toBe(0);
  });
});
