import type { AdminOwnedProject, GatehouseAdminApp } from "@gatehouse/js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  closedPort,
  startTestSmtpServer,
  type TestSmtpServer,
} from "../../packages/server/src/testing/smtp-server.ts";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  ownerWithProject,
  screenshot,
  startDashboard,
} from "./test-support.ts";

/**
 * The sent emails page, driven in the browser and checked through the API and a real SMTP server: the send dialog
 * on the shared server (it says the project needs its own), an owner emailing two chosen users (preview, count,
 * both delivered, both listed as sent, the detail with the rendered email), the filters, and a delivery that fails
 * (its error in words, then paused and cancelled).
 */
let env: DashboardEnv;
let page: Page;
let smtp: TestSmtpServer;
let projectId: string;
let project: () => Promise<AdminOwnedProject>;
const owner = "sent-emails-owner@example.com";
const ada = { email: "ada.sent@example.com", name: "Ada Sender" };
const bob = { email: "bob.sent@example.com", name: "Bob Sender" };

const admin = async (): Promise<GatehouseAdminApp> => adminAppOf(await project());
const go = (rest: string) => page.goto(`${env.baseUrl}/projects/${projectId}/${rest}`);
const modal = () => page.getByRole("dialog");
const table = () => page.getByTestId("sent-emails-table");

async function useSmtp(port: number) {
  await (await project()).update({
    config: {
      emailConfig: {
        type: "standard",
        host: "127.0.0.1",
        port,
        username: "mailer",
        password: "mail password",
        senderEmail: "news@sent.example.com",
        senderName: "Sent project",
      },
    },
  });
}

async function pickUser(name: string) {
  await modal().locator('input[name="recipientSearch"]').fill(name.split(" ")[0]!);
  await modal()
    .getByRole("option", { name: new RegExp(name) })
    .click();
}

async function inDarkMode(run: () => Promise<void>) {
  await page.evaluate(() => localStorage.setItem("gatehouse-dashboard-theme", "dark"));
  await page.reload();
  try {
    await run();
  } finally {
    await page.evaluate(() => localStorage.setItem("gatehouse-dashboard-theme", "light"));
    await page.reload();
  }
}

beforeAll(async () => {
  env = await startDashboard();
  page = await env.newPage();
  smtp = await startTestSmtpServer();
  projectId = await ownerWithProject(env, page, owner, "Sent project");
  const api = await ownerApi(env, owner);
  project = () => api.project(projectId);
  for (const user of [ada, bob]) {
    await (await admin()).createUser({
      primaryEmail: user.email,
      primaryEmailVerified: true,
      displayName: user.name,
    });
  }
});
afterAll(async () => {
  await smtp?.close();
  await env?.close();
});

describe("dashboard sent emails", () => {
  it("on the shared server, the send dialog says the project needs its own email server and links to it", async () => {
    await page.getByRole("link", { name: "Sent emails", exact: true }).click();
    await page.getByRole("heading", { name: "Sent emails" }).waitFor();
    await page.getByRole("button", { name: "Send email to users" }).click();
    const notice = modal().getByTestId("shared-server-notice");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("own email server");
    expect(await modal().getByRole("button", { name: "Review" }).isDisabled()).toBe(true);
    await notice.getByRole("link", { name: "Set up an email server" }).click();
    await page.waitForURL(/\/email$/);
  });

  // A long walk (compose twice, light and dark screenshots, two deliveries): ~20 s on a loaded machine.
  it("an owner emails two users: preview, count, both delivered and listed as sent, the detail shows it", {
    timeout: 90_000,
  }, async () => {
    await useSmtp(smtp.port);
    await go("sent-emails");
    await page.getByRole("button", { name: "Send email to users" }).click();
    await pickUser(ada.name);
    await pickUser(bob.name);
    expect(await modal().getByTestId("chosen-recipients").textContent()).toContain(bob.email);
    await modal().locator('input[name="subject"]').fill("Spring news");
    await modal()
      .locator('textarea[name="html"]')
      .fill("<h1>Spring news</h1><p>Fresh <b>features</b> for you.</p>");
    await screenshot(page, "70-send-email-dialog");

    await modal().getByRole("button", { name: "Review" }).click();
    const confirmation = modal().getByTestId("send-confirmation");
    await confirmation.waitFor();
    expect(await confirmation.textContent()).toContain("2 users");
    const preview = modal().getByTestId("send-email-preview");
    expect(await preview.getAttribute("sandbox")).toBe("");
    expect(await preview.getAttribute("srcdoc")).toContain("Fresh <b>features</b>");
    await screenshot(page, "71-send-email-review");
    await inDarkMode(async () => {
      await page.getByRole("button", { name: "Send email to users" }).click();
      await pickUser(ada.name);
      await modal().locator('input[name="subject"]').fill("Spring news");
      await screenshot(page, "72-send-email-dialog-dark");
      await modal().getByRole("button", { name: "Review" }).click();
      await modal().getByTestId("send-confirmation").waitFor();
      await screenshot(page, "73-send-email-review-dark");
      await modal().getByRole("button", { name: "Back" }).click();
      await modal().getByRole("button", { name: "Cancel" }).click();
    });
    // The dark run reloaded the page: compose again, and this time send.
    await page.getByRole("button", { name: "Send email to users" }).click();
    await pickUser(ada.name);
    await pickUser(bob.name);
    await modal().locator('input[name="subject"]').fill("Spring news");
    await modal()
      .locator('textarea[name="html"]')
      .fill("<h1>Spring news</h1><p>Fresh <b>features</b> for you.</p>");
    await modal().getByRole("button", { name: "Review" }).click();
    await modal().getByRole("button", { name: "Send to 2 users" }).click();
    await modal().waitFor({ state: "detached" });

    for (const user of [ada, bob]) {
      const received = await smtp.waitForMessageTo(user.email);
      expect(received.subject).toBe("Spring news");
      expect(received.html).toContain("Fresh <b>features</b>");
      expect(received.envelope.from).toBe("news@sent.example.com");
    }
    const rows = table().locator("tr", { hasText: "Spring news" });
    await expect
      .poll(async () => {
        await page.getByRole("button", { name: "Refresh" }).click();
        return rows.locator('[data-status="sent"]').count();
      })
      .toBe(2);
    expect(await table().textContent()).toContain(ada.email);
    expect(await table().textContent()).toContain(bob.email);
    const sent = (await (await admin()).listOutboxEmails({ status: "sent" })).items;
    expect(sent.filter((email) => "subject" in email && email.subject === "Spring news")).toHaveLength(2);
    await screenshot(page, "74-sent-emails-list");
    await inDarkMode(async () => {
      await table().locator('[data-status="sent"]').first().waitFor();
      await screenshot(page, "75-sent-emails-list-dark");
    });

    await table().locator("tr", { hasText: ada.email }).click();
    await page.waitForURL(/\/sent-emails\/[0-9a-f-]+$/);
    expect(await page.getByTestId("email-recipient").textContent()).toContain(ada.email);
    const rendered = page.getByTestId("sent-email-preview");
    expect(await rendered.getAttribute("sandbox")).toBe("");
    expect(await rendered.getAttribute("srcdoc")).toContain("Fresh <b>features</b>");
    expect(await page.getByTestId("email-timeline").textContent()).toContain("Accepted by the email server");
    expect(await page.getByRole("button", { name: "Pause" }).count()).toBe(0);
    await screenshot(page, "76-sent-email-detail");
    await inDarkMode(async () => {
      await page.getByTestId("sent-email-preview").waitFor();
      await screenshot(page, "77-sent-email-detail-dark");
    });
  });

  it("a template with variables: bad JSON is refused in words, the review renders the template's subject", async () => {
    await go("sent-emails");
    await page.getByRole("button", { name: "Send email to users" }).click();
    await modal().locator('select[name="audience"]').selectOption("all");
    await modal().locator('select[name="content"]').selectOption({ label: "Template: Email Verification" });
    await modal().locator('textarea[name="variables"]').fill("{not json");
    await modal().getByText("Variables are not valid JSON").waitFor();
    expect(await modal().getByRole("button", { name: "Review" }).isDisabled()).toBe(true);
    await modal()
      .locator('textarea[name="variables"]')
      .fill('{"emailVerificationLink": "https://app.example.com/verify?code=preview"}');
    await modal().getByRole("button", { name: "Review" }).click();
    const confirmation = modal().getByTestId("send-confirmation");
    await confirmation.waitFor();
    // Both users of the project (the owner signed up to another project, `internal`).
    expect(await confirmation.textContent()).toContain("all 2 users");
    expect(await modal().locator(".modal-head").textContent()).toContain("Verify your email at");
    expect(await modal().getByTestId("send-email-preview").getAttribute("srcdoc")).toContain("<html");
    await modal().getByRole("button", { name: "Back" }).click();
    await modal().getByRole("button", { name: "Cancel" }).click();
    await modal().waitFor({ state: "detached" });
  });

  it("filters by status and outcome", async () => {
    await go("sent-emails");
    await table().locator('[data-status="sent"]').first().waitFor();
    await page.locator('select[name="statusFilter"]').selectOption("server-error");
    await page.getByText("No emails match").waitFor();
    await page.locator('select[name="statusFilter"]').selectOption("");
    await page.locator('select[name="simpleStatusFilter"]').selectOption("ok");
    await expect.poll(() => table().locator('[data-status="sent"]').count()).toBe(2);
    expect(await table().locator("[data-status]").count()).toBe(2);
  });

  it("a delivery that fails shows its error in words; it can be paused and cancelled", async () => {
    await useSmtp(await closedPort());
    const [userId] = (await (await admin()).listUsers({ query: ada.email })).map((user) => user.id);
    await (await admin()).sendEmail({
      userIds: [userId!],
      html: "<p>Never arrives</p>",
      subject: "Lost letter",
    });

    await go("sent-emails");
    const row = table().locator("tr", { hasText: "Lost letter" });
    // The worker's first attempt fails at once (nothing listens on the port); refresh until the list shows it.
    await expect
      .poll(async () => {
        await page.getByRole("button", { name: "Refresh" }).click();
        return row.getByText("Failed, retrying").count();
      })
      .toBe(1);
    expect(await row.textContent()).toContain("Could not connect to the email server");
    expect(await row.textContent()).toContain("1 attempt so far");

    await row.click();
    await page.waitForURL(/\/sent-emails\/[0-9a-f-]+$/);
    expect(await page.getByTestId("email-problem").textContent()).toContain(
      "Could not connect to the email server",
    );
    expect(await page.getByTestId("email-timeline").textContent()).toContain("Attempt 1 failed");
    await screenshot(page, "78-sent-email-failed");

    await page.getByRole("button", { name: "Pause" }).click();
    await page.locator('[data-testid="email-status"][data-status="paused"]').waitFor();
    await page.getByRole("button", { name: "Cancel email" }).click();
    await modal().getByRole("button", { name: "Cancel email" }).click();
    await page.locator('[data-testid="email-status"][data-status="skipped"]').waitFor();
    expect(await page.getByTestId("email-problem").textContent()).toContain("it was cancelled");
    const id = new URL(page.url()).pathname.split("/").pop()!;
    expect(await (await admin()).getOutboxEmail(id)).toMatchObject({
      status: "skipped",
      skippedReason: "MANUALLY_CANCELLED",
    });
    expect(smtp.messages.some((message) => message.subject === "Lost letter")).toBe(false);
  });
  it("in development without an SMTP server, the sent email is the inbox: rendered, with a working link", async () => {
    // Back on the shared server, which in development with no GATEHOUSE_SMTP_URL is the dev outbox.
    await (await project()).update({ config: { emailConfig: { type: "shared" } } });
    const callback = `${env.baseUrl}/handler/sign-in?invited=dev-inbox`;
    await (await admin()).sendSignInInvitationEmail("guest.dev@example.com", callback);
    let id = "";
    await expect
      .poll(async () => {
        const { items } = await (await admin()).listOutboxEmails({ status: "sent" });
        id = items.find((item) => item.recipients.includes("guest.dev@example.com"))?.id ?? "";
        return id;
      })
      .not.toBe("");
    await go(`sent-emails/${id}`);
    const frame = page.getByTestId("sent-email-preview");
    await frame.waitFor();
    expect(await frame.getAttribute("sandbox")).toBe("allow-popups allow-popups-to-escape-sandbox");
    const link = page
      .frameLocator('[data-testid="sent-email-preview"]')
      .getByRole("link", { name: "Sign in" });
    expect(await link.getAttribute("href")).toContain("invited=dev-inbox");
    const [opened] = await Promise.all([page.context().waitForEvent("page"), link.click()]);
    await opened.waitForURL(/\/handler\/sign-in\?invited=dev-inbox/);
    await opened.close();
    await screenshot(page, "79-sent-email-dev-inbox");
  });
});
