import type { AdminOwnedProject } from "@gatehouse/js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makePng } from "../../packages/server/src/testing/images.ts";
import { emailsTo } from "../../packages/server/src/testing/outbox.ts";
import { closedPort, startTestSmtpServer } from "../../packages/server/src/testing/smtp-server.ts";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  ownerWithProject,
  screenshot,
  startDashboard,
} from "./test-support.ts";

/**
 * The dashboard's second-level actions, each driven in the browser and checked through the API: team members and
 * their permissions, invitations, deleting a team, revoking a session, a delivered test email, transferring the
 * project to another team.
 */
let env: DashboardEnv;
let page: Page;
let projectId: string;
let owner: Awaited<ReturnType<typeof ownerApi>>;
let project: () => Promise<AdminOwnedProject>;
const email = "manage-owner@example.com";

const go = async (section: string) => {
  await page.goto(`${env.baseUrl}/projects/${projectId}/${section}`);
};
const modal = () => page.locator(".modal");

beforeAll(async () => {
  env = await startDashboard();
  page = await env.newPage();
  projectId = await ownerWithProject(env, page, email, "Manage project");
  owner = await ownerApi(env, email);
  project = () => owner.project(projectId);
});
afterAll(() => env?.close());

describe("dashboard management", () => {
  it("team: adds a member by search, grants a team permission, invites, revokes, deletes the team", async () => {
    const admin = adminAppOf(await project());
    const grace = await admin.createUser({ primaryEmail: "grace@example.com", displayName: "Grace Hopper" });
    await admin.createUser({ primaryEmail: "alan@example.com", displayName: "Alan Turing" });
    const team = await admin.createTeam({ displayName: "Compilers" });
    await go(`teams/${team.id}`);

    // The picker finds users by what owners know (a name), not by id.
    await page.locator('input[name="addMember"]').fill("Grace");
    const option = page.getByRole("option", { name: /Grace Hopper/ });
    await option.waitFor();
    expect(await page.getByRole("option").count()).toBe(1);
    await option.click();
    await page.getByTestId("members").getByText("Grace Hopper").waitFor();
    expect((await team.listUsers()).map((user) => user.id)).toEqual([grace.id]);

    // Adding grace selected her: her direct permissions show; grant one and check it through the API.
    const checkbox = page.getByTestId("member-permissions").locator('input[name="perm-$invite_members"]');
    await checkbox.waitFor();
    const before = await checkbox.isChecked();
    await checkbox.click();
    await expect
      .poll(async () =>
        (await grace.listPermissions(team, { recursive: false })).some((p) => p.id === "$invite_members"),
      )
      .toBe(!before);
    await screenshot(page, "30-team-members");

    // An invitation is refused until the address looks like one, then sent by email.
    await page.locator('input[name="inviteEmail"]').fill("not-an-email");
    expect(await page.getByRole("button", { name: "Invite" }).isDisabled()).toBe(true);
    await page.locator('input[name="inviteEmail"]').fill("linus@example.com");
    await page.getByRole("button", { name: "Invite" }).click();
    await page.getByTestId("invitations").getByText("linus@example.com").waitFor();
    expect((await team.listInvitations()).map((i) => i.recipientEmail)).toEqual(["linus@example.com"]);
    const [invitationEmail] = await emailsTo(env.gatehouse, projectId, "linus@example.com");
    expect(invitationEmail?.subject).toMatch(/Compilers/);
    await screenshot(page, "31-team-invitations");

    await page.getByTestId("invitations").getByRole("button", { name: "Revoke" }).click();
    await modal().getByRole("button", { name: "Revoke" }).click();
    await page.getByText("No pending invitations.").waitFor();
    expect(await team.listInvitations()).toEqual([]);

    // A member without a display name goes by their email, not "Unnamed".
    const nameless = await admin.createUser({ primaryEmail: "nameless@example.com" });
    await team.addUser(nameless.id);
    await page.reload();
    await page.getByTestId("members").getByRole("button", { name: "nameless@example.com" }).waitFor();
    expect(await page.getByTestId("members").getByText("Unnamed").count()).toBe(0);

    // Deleting asks for the team's name first.
    await page.getByRole("button", { name: "Delete team" }).click();
    const confirm = modal().getByRole("button", { name: "Delete team" });
    expect(await confirm.isDisabled()).toBe(true);
    await screenshot(page, "32-team-delete-confirm");
    await modal().locator('input[name="confirm"]').fill("Compilers");
    await confirm.click();
    await page.waitForURL(/\/teams$/);
    expect(await admin.getTeam(team.id)).toBeNull();
    // The member is still a user of the project.
    expect((await admin.getUser(grace.id))?.id).toBe(grace.id);
  });

  it("users: pages through more users than fit a page, and sorts by sign-up date both ways", async () => {
    const admin = adminAppOf(await project());
    const existing = (await admin.listUsers({ limit: 100, includeRestricted: true })).length;
    // Enough for two full pages of 25 and a third one.
    for (let i = 0; i < 52 - existing; i++) {
      await admin.createUser({ primaryEmail: `paged${String(i).padStart(2, "0")}@example.com` });
    }
    await go("users");
    const emails = () => page.getByTestId("users-table").locator("tbody tr .small").allTextContents();
    await expect.poll(async () => (await emails()).length).toBe(25);
    const firstPage = await emails();
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("Page 2").waitFor();
    // The table empties while the next page loads: wait for a full page that is not the first one.
    await expect
      .poll(async () => {
        const shown = await emails();
        return shown.length === 25 && shown[0] !== firstPage[0];
      })
      .toBe(true);
    const secondPage = await emails();
    expect(secondPage).toHaveLength(25);
    expect(secondPage.filter((email) => firstPage.includes(email))).toEqual([]);
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("Page 3").waitFor();
    await expect.poll(async () => (await emails()).length).toBe(2);
    expect(await page.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);

    // Oldest first: the first page now starts where the newest-first listing ended.
    await page.getByTestId("sort-signed-up").click();
    await page.getByText("Page 1").waitFor();
    const newestFirst = [
      ...firstPage,
      ...secondPage,
      ...(await admin.listUsers({ limit: 100, includeRestricted: true, orderBy: "signedUpAt", desc: true }))
        .slice(50)
        .map((u) => u.primaryEmail ?? u.id),
    ];
    await expect.poll(async () => (await emails())[0]).toBe(newestFirst[newestFirst.length - 1]);
  });

  it("user: revokes one session and leaves the others", async () => {
    const admin = adminAppOf(await project());
    const user = await admin.createUser({
      primaryEmail: "sessions@example.com",
      displayName: "Session Holder",
    });
    await user.createSession({});
    await user.createSession({});
    const sessions = await user.getActiveSessions();
    expect(sessions).toHaveLength(2);
    await go(`users/${user.id}`);
    const rows = page.getByTestId("sessions").locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    await rows.first().getByRole("button", { name: "Revoke" }).click();
    await modal().getByRole("button", { name: "Revoke" }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await user.getActiveSessions()).toHaveLength(1);
    await screenshot(page, "33-user-sessions");
  });

  it("email: a test email through a custom SMTP server arrives, and the result says so", async () => {
    const smtp = await startTestSmtpServer();
    try {
      await go("email");
      await page.locator('select[name="emailType"]').selectOption("standard");
      await page.locator('input[name="smtpHost"]').fill("127.0.0.1");
      await page.locator('input[name="smtpPort"]').fill(String(smtp.port));
      await page.locator('input[name="smtpUsername"]').fill("mailer");
      await page.locator('input[name="smtpPassword"]').fill("mail password");
      await page.locator('input[name="senderEmail"]').fill("noreply@manage.example.com");
      await page.locator('input[name="testRecipient"]').fill("owner-inbox@example.com");
      await page.getByRole("button", { name: "Send test email" }).click();
      const result = page.getByTestId("test-email-result");
      await result.waitFor({ timeout: 20_000 });
      expect(await result.textContent()).toContain("✓");
      const received = await smtp.waitForMessageTo("owner-inbox@example.com");
      expect(received.envelope.from).toBe("noreply@manage.example.com");
      expect(received.authenticatedUser).toBe("mailer");
      await screenshot(page, "34-email-test-sent");
    } finally {
      await smtp.close();
    }
  });

  it("email: the sent-email list shows a delivery that failed, with its error", async () => {
    const current = await project();
    await current.update({
      config: {
        emailConfig: {
          type: "standard",
          host: "127.0.0.1",
          port: await closedPort(),
          username: "mailer",
          password: "mail password",
          senderEmail: "noreply@manage.example.com",
          senderName: "Manage",
        },
      },
    });
    const admin = adminAppOf(current);
    const team = await admin.createTeam({ displayName: "Unlucky" });
    await team.inviteUser({
      email: "unreachable@example.com",
      callbackUrl: `${env.baseUrl}/handler/team-invitation`,
    });
    await go("email");
    const row = page.getByTestId("sent-emails").locator("tr", { hasText: "unreachable@example.com" });
    // The worker's first attempt fails at once (nothing listens on the port); reload until the list shows it.
    await expect
      .poll(async () => {
        await page.reload();
        await page.getByTestId("sent-emails").waitFor();
        return row.getByText("Failed").count();
      })
      .toBe(1);
    expect(await row.textContent()).toMatch(/ECONNREFUSED|connect/i);
    await screenshot(page, "39-email-failed-delivery");
  });

  it("settings: transfers the project to another team of the owner", async () => {
    const before = await project();
    const otherTeam = await owner.user.createTeam({ displayName: "Platform team" });
    await go("settings");
    await page.locator('select[name="transferTeam"] option', { hasText: "Platform team" }).waitFor({
      state: "attached",
    });
    await page.locator('select[name="transferTeam"]').selectOption(otherTeam.id);
    await page.getByRole("button", { name: "Transfer", exact: true }).click();
    await screenshot(page, "35-settings-transfer-confirm");
    await modal().getByRole("button", { name: "Transfer" }).click();
    await expect.poll(async () => (await project()).ownerTeamId).toBe(otherTeam.id);
    expect(before.ownerTeamId).not.toBe(otherTeam.id);
  });

  it("settings: uploads a picked logo file, then shows the URL it is served from", async () => {
    const logo = makePng(8, 8, [30, 90, 200]);
    await go("settings");
    await page
      .locator('input[name="logoUrlFile"]')
      .setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: logo });
    await page.getByText("A new image is picked; Save uploads it.").waitFor();
    await page
      .locator(".card", { hasText: "General" })
      .getByRole("button", { name: "Save", exact: true })
      .click();
    await expect
      .poll(async () => (await project()).logoUrl)
      .toMatch(/\/files\/project-logos\/[0-9a-f-]{36}\.png$/);
    const stored = (await project()).logoUrl!;
    expect(stored.startsWith(env.baseUrl)).toBe(true);
    await expect.poll(() => page.locator('input[name="logoUrl"]').inputValue()).toBe(stored);
    const preview = page.getByRole("img", { name: "Logo: preview" });
    expect(await preview.getAttribute("src")).toBe(stored);
    await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(8);
    await screenshot(page, "35b-settings-logo-uploaded");
    expect(Buffer.from(await (await fetch(stored)).arrayBuffer())).toEqual(logo);
  });

  it("refuses bad input in forms and keeps what was stored", async () => {
    const admin = adminAppOf(await project());

    // A user with an email another user signs in with.
    await admin.createUser({ primaryEmail: "taken@example.com", primaryEmailAuthEnabled: true });
    const before = (await admin.listUsers({ limit: 100, includeRestricted: true })).length;
    await go("users");
    await page.getByRole("button", { name: "Create user" }).click();
    const dialog = page.getByRole("dialog").filter({ hasText: "Create user" });
    await dialog.locator('input[name="email"]').fill("taken@example.com");
    await dialog.getByRole("button", { name: "Create user" }).click();
    await dialog.getByRole("alert").waitFor();
    expect(await dialog.getByRole("alert").textContent()).toMatch(/already/i);
    await screenshot(page, "36-users-create-duplicate");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await admin.listUsers({ limit: 100, includeRestricted: true })).length).toBe(before);

    // A standard OAuth provider cannot be turned on without its client id and secret.
    await go("auth-methods");
    await page
      .getByTestId("oauth-providers")
      .locator("tr", { hasText: "github" })
      .getByRole("button")
      .click();
    await page.locator('select[name="providerType"]').selectOption("standard");
    await page.locator('input[name="clientId"]').fill("only-an-id");
    expect(await modal().getByRole("button", { name: "Turn on" }).isDisabled()).toBe(true);
    await modal().getByRole("button", { name: "Cancel" }).click();
    expect((await project()).config.oauthProviders.find((p) => p.id === "github")).toBeUndefined();

    // A config override the server's schema refuses: the owner sees why, and nothing changes.
    await go("settings");
    const overrideBefore = await (await project()).getConfigOverride("environment");
    await page.locator('textarea[name="configOverride"]').fill('{ "auth.allowSignUp": "sometimes" }');
    await page.getByTestId("json-configOverride").getByRole("button", { name: "Save" }).click();
    const toast = page.locator('.toast[data-kind="error"]');
    await toast.waitFor();
    expect(await toast.textContent()).toMatch(/allowSignUp/);
    await screenshot(page, "37-settings-override-refused");
    expect(await (await project()).getConfigOverride("environment")).toEqual(overrideBefore);
    expect((await project()).config.signUpEnabled).toBe(true);
  });

  it("every page in dark mode", async () => {
    await go("");
    await page.evaluate(() => localStorage.setItem("gatehouse-dashboard-theme", "dark"));
    const sections = [
      "",
      "users",
      "teams",
      "permissions",
      "auth-methods",
      "domains",
      "keys",
      "email",
      "settings",
    ];
    for (const section of sections) {
      await go(section);
      await page.locator(".page h1").first().waitFor();
      await page.locator('[data-testid="loading"]').first().waitFor({ state: "detached" });
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
      await screenshot(page, `dark-${section || "overview"}`);
    }
    await page.evaluate(() => localStorage.removeItem("gatehouse-dashboard-theme"));
  });
});
