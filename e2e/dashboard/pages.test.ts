import type { AdminOwnedProject } from "@gatehouse/js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  ownerWithProject,
  screenshot,
  startDashboard,
} from "./test-support.ts";

let env: DashboardEnv;
let page: Page;
let projectId: string;
let project: () => Promise<AdminOwnedProject>;
const email = "pages-owner@example.com";

const go = async (section: string) => {
  await page.goto(`${env.baseUrl}/projects/${projectId}/${section}`);
  await page
    .locator('[data-testid="loading"]')
    .first()
    .waitFor({ state: "detached" })
    .catch(() => {});
};

beforeAll(async () => {
  env = await startDashboard();
  page = await env.newPage();
  projectId = await ownerWithProject(env, page, email, "Pages project");
  const owner = await ownerApi(env, email);
  project = () => owner.project(projectId);
});
afterAll(() => env?.close());

describe("dashboard pages", () => {
  it("users: creates a user, searches, edits metadata (refusing bad JSON), restricts", async () => {
    const admin = adminAppOf(await project());
    for (let i = 0; i < 3; i++)
      await admin.createUser({ primaryEmail: `seed${i}@example.com`, displayName: `Seed ${i}` });
    await go("users");
    await page.getByTestId("users-table").waitFor();
    await page.getByRole("button", { name: "Create user" }).click();
    const dialog = page.getByRole("dialog").filter({ hasText: "Create user" });
    await dialog.waitFor();
    await dialog.locator('input[name="email"]').fill("ada@example.com");
    await dialog.locator('input[name="displayName"]').fill("Ada Lovelace");
    await dialog.getByRole("button", { name: "Create user" }).click();
    await page.waitForURL(/\/users\/[^/]+$/);
    const userId = new URL(page.url()).pathname.split("/").pop()!;
    expect((await admin.getUser(userId))?.displayName).toBe("Ada Lovelace");

    // The user page fetches the user after the address changes: wait for it to show (the heading names the
    // user, rendered together with the editors) instead of giving the editor only fill's own timeout.
    await page.getByRole("heading", { name: /Ada Lovelace/ }).waitFor({ timeout: 30_000 });
    const editor = page.getByTestId("json-serverMetadata").locator("textarea");
    await editor.fill("{ not json");
    await page
      .getByTestId("json-serverMetadata")
      .getByText(/Invalid JSON/)
      .waitFor();
    expect(
      await page.getByTestId("json-serverMetadata").getByRole("button", { name: "Save" }).isDisabled(),
    ).toBe(true);
    await editor.fill('{"plan": "pro"}');
    await page.getByTestId("json-serverMetadata").getByRole("button", { name: "Save" }).click();
    await expect.poll(async () => (await admin.getUser(userId))?.serverMetadata).toEqual({ plan: "pro" });
    await screenshot(page, "10-user");

    await page.getByRole("button", { name: "Restrict user" }).click();
    await page.locator(".modal").getByRole("button", { name: "Restrict" }).click();
    await expect.poll(async () => (await admin.getUser(userId))?.restrictedByAdmin).toBe(true);

    await page.getByRole("button", { name: "Impersonate" }).click();
    const snippet = (await page.getByTestId("copy-impersonation-snippet").locator("code").textContent())!;
    await screenshot(page, "11-user-impersonate");
    await page.getByRole("button", { name: "Done" }).click();
    // The snippet carries a working refresh token of the new session.
    const refreshToken = /stack-refresh-[^=]+=([^;]+);/.exec(snippet)![1]!;
    const refreshed = await fetch(`${env.baseUrl}/api/v1/auth/sessions/current/refresh`, {
      method: "POST",
      headers: {
        "x-stack-project-id": projectId,
        "x-stack-access-type": "client",
        "x-stack-refresh-token": refreshToken,
      },
    });
    expect(refreshed.status, await refreshed.clone().text()).toBe(200);

    // The users list leaves restricted users out (the SDK cannot ask for them yet), so lift it again.
    await page.getByRole("button", { name: "Lift restriction" }).click();
    await expect.poll(async () => (await admin.getUser(userId))?.restrictedByAdmin).toBe(false);

    await go("users");
    await page.getByTestId("users-table").waitFor({ timeout: 30_000 });
    await page.locator('input[name="search"]').fill("Ada");
    await expect.poll(() => page.getByTestId("users-table").locator("tbody tr").count()).toBe(1);
    await page.locator('input[name="search"]').fill("");
    await expect.poll(() => page.getByTestId("users-table").locator("tbody tr").count()).toBe(4);
    await screenshot(page, "09-users");
  });

  it("teams: creates a team, edits metadata, invites", async () => {
    await go("teams");
    await screenshot(page, "12-teams-empty");
    await page.getByRole("button", { name: "Create team" }).click();
    await page.locator('input[name="teamName"]').fill("Research");
    await page.locator(".modal").getByRole("button", { name: "Create team" }).click();
    await page.waitForURL(/\/teams\/[^/]+$/);
    const teamId = new URL(page.url()).pathname.split("/").pop()!;
    const admin = adminAppOf(await project());
    expect((await admin.getTeam(teamId))?.displayName).toBe("Research");
    await page.locator('textarea[name="teamServerMetadata"]').fill('{"tier": 2}');
    await page.getByTestId("json-teamServerMetadata").getByRole("button", { name: "Save" }).click();
    await expect.poll(async () => (await admin.getTeam(teamId))?.serverMetadata).toEqual({ tier: 2 });
    await screenshot(page, "13-team");
  });

  it("permissions: creates a permission containing another, refuses a duplicate id", async () => {
    await go("permissions");
    await page.getByRole("tab", { name: "Project permissions" }).click();
    const create = async (id: string, contains?: string) => {
      await page.getByRole("button", { name: "Create permission" }).first().click();
      await page.locator('input[name="permissionId"]').fill(id);
      if (contains) await page.locator(`input[name="contains-${contains}"]`).check();
      await page.locator(".modal").getByRole("button", { name: "Create permission" }).click();
    };
    await create("read_reports");
    await page.getByTestId("project-definitions").getByText("read_reports").waitFor();
    await create("manage_reports", "read_reports");
    await page.getByTestId("project-graph").getByText("manage_reports").waitFor();
    const admin = adminAppOf(await project());
    const defs = await admin.listProjectPermissionDefinitions();
    expect(defs.find((d) => d.id === "manage_reports")?.containedPermissionIds).toEqual(["read_reports"]);
    await create("read_reports");
    await page
      .locator(".modal")
      .getByText(/already exists/)
      .waitFor();
    await screenshot(page, "14-permissions-duplicate");
    await page.locator(".modal").getByRole("button", { name: "Cancel" }).click();
    await page.getByTestId("defaults-userDefaultPermissions").locator("input").first().click();
    await expect
      .poll(async () => (await project()).config.userDefaultPermissions.map((p) => p.id))
      .toContain("manage_reports");
    await screenshot(page, "15-permissions");
  });

  it("auth methods: toggles magic link and configures a provider", async () => {
    await go("auth-methods");
    const before = (await project()).config.magicLinkEnabled;
    await page.locator('input[name="magicLinkEnabled"]').click();
    await expect.poll(async () => (await project()).config.magicLinkEnabled).toBe(!before);
    await page
      .getByTestId("oauth-providers")
      .locator("tr", { hasText: "microsoft" })
      .getByRole("button")
      .click();
    await page.locator('select[name="providerType"]').selectOption("standard");
    await page.locator('input[name="clientId"]').fill("ms-client");
    await page.locator('input[name="clientSecret"]').fill("ms-secret");
    await page.locator('input[name="microsoftTenantId"]').fill("contoso");
    await page.locator(".modal").getByRole("button", { name: "Turn on" }).click();
    await expect
      .poll(async () => (await project()).config.oauthProviders.find((p) => p.id === "microsoft"))
      .toMatchObject({ type: "standard", clientId: "ms-client", microsoftTenantId: "contoso" });
    await screenshot(page, "16-auth-methods");
  });

  it("auth methods: adds an OpenID Connect provider and a self-hosted GitLab, refuses a bad Apple key", async () => {
    await go("auth-methods");
    const modal = page.locator(".modal");
    const providers = async () =>
      ((await (await project()).getConfig()) as { auth: { oauth: { providers: Record<string, unknown> } } })
        .auth.oauth.providers;

    await page.getByRole("button", { name: "Add OpenID Connect provider" }).click();
    await modal.locator('input[name="providerKey"]').fill("acme");
    await modal.locator('input[name="displayName"]').fill("Acme SSO");
    await modal.locator('input[name="issuerUrl"]').fill("https://login.acme.example");
    await modal.locator('input[name="clientId"]').fill("acme-client");
    expect(await modal.getByRole("button", { name: "Turn on" }).isDisabled()).toBe(true);
    await modal.locator('input[name="clientSecret"]').fill("acme-secret");
    expect(await modal.getByTestId("copy-callback-url").locator("code").textContent()).toBe(
      `${env.baseUrl}/api/v1/auth/oauth/callback/acme`,
    );
    await screenshot(page, "16b-auth-methods-openid-connect");
    await modal.getByRole("button", { name: "Turn on" }).click();
    await expect
      .poll(async () => (await providers()).acme)
      .toMatchObject({
        type: "custom_oidc",
        isShared: false,
        clientId: "acme-client",
        issuerUrl: "https://login.acme.example",
        displayName: "Acme SSO",
      });
    const acmeRow = page.getByTestId("oauth-providers").locator("tr", { hasText: "Acme SSO (acme)" });
    await acmeRow.getByText("OpenID Connect").waitFor();

    // The id is taken now.
    await page.getByRole("button", { name: "Add OpenID Connect provider" }).click();
    await modal.locator('input[name="providerKey"]').fill("acme");
    await modal.getByText("A provider with this id exists already.").waitFor();
    await modal.getByRole("button", { name: "Cancel" }).click();

    await page
      .getByTestId("oauth-providers")
      .locator("tr", { hasText: "GitLab" })
      .getByRole("button")
      .click();
    await modal.locator('select[name="providerType"]').selectOption("standard");
    await modal.locator('input[name="clientId"]').fill("gl-client");
    await modal.locator('input[name="clientSecret"]').fill("gl-secret");
    await modal.getByText("GitLab instance URL").waitFor();
    await modal.locator('input[name="issuerUrl"]').fill("https://gitlab.acme.example");
    await modal.getByRole("button", { name: "Turn on" }).click();
    await expect
      .poll(async () => (await providers()).gitlab)
      .toMatchObject({
        type: "gitlab",
        isShared: false,
        issuerUrl: "https://gitlab.acme.example",
      });
    await page
      .getByTestId("oauth-providers")
      .locator("tr", { hasText: "GitLab" })
      .getByText("Own server")
      .waitFor();

    // The server refuses an Apple key id that is not one; the owner reads why, and nothing is stored.
    await page.getByTestId("oauth-providers").locator("tr", { hasText: "Apple" }).getByRole("button").click();
    await modal.locator('select[name="providerType"]').selectOption("standard");
    await modal.locator('input[name="clientId"]').fill("com.acme.web");
    await modal.locator('input[name="appleTeamId"]').fill("TEAM123456");
    await modal.locator('input[name="appleKeyId"]').fill("not-a-key-id");
    await modal
      .locator('textarea[name="applePrivateKey"]')
      .fill("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----");
    await modal.getByRole("button", { name: "Turn on" }).click();
    const toast = page.locator('.toast[data-kind="error"]');
    await toast.waitFor();
    expect(await toast.textContent()).toMatch(/appleKeyId/);
    expect((await providers()).apple).toBeUndefined();
    await screenshot(page, "16c-auth-methods-apple-refused");
    await modal.getByRole("button", { name: "Cancel" }).click();
  });

  it("domains: refuses an invalid domain, adds a valid one", async () => {
    await go("domains");
    await page.locator('input[name="domain"]').fill("https://exa mple.com");
    await page.getByRole("button", { name: "Add domain" }).click();
    await page.locator(".field-error").waitFor();
    await screenshot(page, "17-domains-invalid");
    expect((await project()).config.domains).toEqual([]);
    await page.locator('input[name="domain"]').fill("https://app.example.com");
    await page.getByRole("button", { name: "Add domain" }).click();
    await page.getByTestId("domains").getByText("https://app.example.com").waitFor();
    expect((await project()).config.domains).toEqual([
      { domain: "https://app.example.com", handlerPath: "/handler" },
    ]);
    await screenshot(page, "18-domains");
  });

  it("keys: creates a key set shown once, then revokes it", async () => {
    await go("keys");
    await page.getByRole("button", { name: "Create key set" }).click();
    await page.locator('input[name="keyDescription"]').fill("CI keys");
    await page.locator(".modal").getByRole("button", { name: "Create keys" }).click();
    const secret = await page.getByTestId("copy-secret-server-key").locator("code").textContent();
    await screenshot(page, "19-keys-created");
    await page.getByRole("button", { name: "I have copied them" }).click();
    const row = page.getByTestId("keys-table").locator("tr", { hasText: "CI keys" });
    expect(await row.textContent()).toContain(secret!.slice(-4));
    await row.getByRole("button", { name: "Revoke" }).click();
    await page.locator(".modal").getByRole("button", { name: "Revoke keys" }).click();
    await row.getByText("Revoked").waitFor();
    const keys = await adminAppOf(await project()).listInternalApiKeys();
    expect(keys.find((key) => key.description === "CI keys")?.whyInvalid()).toBe("manually-revoked");
    await screenshot(page, "20-keys");
  });

  it("email: reports a failing test email, saves a custom SMTP server", async () => {
    await go("email");
    await page.locator('select[name="emailType"]').selectOption("standard");
    await page.locator('input[name="smtpHost"]').fill("127.0.0.1");
    await page.locator('input[name="smtpPort"]').fill("1");
    await page.locator('input[name="senderEmail"]').fill("noreply@example.com");
    await page.locator('input[name="testRecipient"]').fill("me@example.com");
    await page.getByRole("button", { name: "Send test email" }).click();
    await page.getByTestId("test-email-result").waitFor({ timeout: 20_000 });
    expect(await page.getByTestId("test-email-result").textContent()).toContain("✗");
    await page.getByRole("button", { name: "Save", exact: true }).first().click();
    await expect
      .poll(async () => (await project()).config.emailConfig)
      .toMatchObject({ type: "standard", host: "127.0.0.1" });
    await screenshot(page, "21-email");
  });

  it("settings: renames, shows the production checklist, refuses a bad override, deletes", async () => {
    await go("settings");
    await page.locator('input[name="projectName"]').fill("Renamed project");
    await page.getByRole("button", { name: "Save", exact: true }).first().click();
    await expect.poll(async () => (await project()).displayName).toBe("Renamed project");
    await page.getByRole("button", { name: "Go to production…" }).click();
    await page
      .getByTestId("production-checklist")
      .getByText(/Allow localhost/)
      .waitFor();
    expect(
      await page.locator(".modal").getByRole("button", { name: "Turn on production mode" }).isDisabled(),
    ).toBe(true);
    await screenshot(page, "22-settings-production");
    await page.locator(".modal").getByRole("button", { name: "Cancel" }).click();
    await page.locator('textarea[name="configOverride"]').fill("[1, 2]");
    await page.getByTestId("json-configOverride").getByText("Must be a JSON object.").waitFor();
    await screenshot(page, "23-settings");

    await page.getByRole("button", { name: "Delete project" }).click();
    await page.locator('.modal input[name="confirm"]').fill("Renamed project");
    await page.locator(".modal").getByRole("button", { name: "Delete project" }).click();
    await expect
      .poll(() =>
        project().then(
          () => "exists",
          () => "gone",
        ),
      )
      .toBe("gone");
  });

  it("dark mode", async () => {
    await page.goto(`${env.baseUrl}/new-project`);
    await page.evaluate(() => localStorage.setItem("gatehouse-dashboard-theme", "dark"));
    await page.reload();
    await page.locator('input[name="displayName"]').waitFor();
    await screenshot(page, "24-dark-create-project");
  });
});
