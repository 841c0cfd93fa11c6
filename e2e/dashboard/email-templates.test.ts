import type { AdminOwnedProject } from "@gatehouse/js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BUILT_IN_TEMPLATE_IDS,
  BUILT_IN_TEMPLATES,
  DEFAULT_DARK_THEME_ID,
  DEFAULT_LIGHT_THEME_ID,
} from "../../packages/server/src/email-rendering/index.ts";
import { startTestSmtpServer, type TestSmtpServer } from "../../packages/server/src/testing/smtp-server.ts";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  ownerWithProject,
  screenshot,
  startDashboard,
} from "./test-support.ts";

/**
 * The email templates pages, driven in the browser and checked through the API: the shared-server notice and the
 * selected theme, then (with the owner's own SMTP server) editing the verification template with a live preview,
 * saving, resetting to default, a broken template's error with its line, and a template created and deleted.
 */
let env: DashboardEnv;
let page: Page;
let smtp: TestSmtpServer;
let projectId: string;
let project: () => Promise<AdminOwnedProject>;
const email = "templates-owner@example.com";
const VERIFICATION = BUILT_IN_TEMPLATE_IDS.email_verification;
const SHIPPED = BUILT_IN_TEMPLATES.find((t) => t.id === VERIFICATION)!.tsxSource;

const admin = async () => adminAppOf(await project());
const go = (rest: string) => page.goto(`${env.baseUrl}/projects/${projectId}/${rest}`);
const preview = () => page.getByTestId("email-preview");
const previewHtml = async () => (await preview().getAttribute("srcdoc")) ?? "";
/** The preview has rendered what the editor holds now. */
const previewSettled = () => page.locator('[data-testid="preview-status"][data-state="ready"]').waitFor();
const storedSource = async () =>
  (await (await admin()).listEmailTemplates()).find((t) => t.id === VERIFICATION)?.tsxSource;

/** Replaces the whole TSX in the CodeMirror editor, as a paste would. */
async function typeSource(source: string) {
  const editor = page.getByTestId("code-editor");
  await editor.click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.insertText(source);
}

beforeAll(async () => {
  env = await startDashboard();
  page = await env.newPage();
  smtp = await startTestSmtpServer();
  projectId = await ownerWithProject(env, page, email, "Template project");
  const owner = await ownerApi(env, email);
  project = () => owner.project(projectId);
});
afterAll(async () => {
  await smtp?.close();
  await env?.close();
});

describe("dashboard email templates", () => {
  it("on the shared server: a notice, built-ins to preview only, and the default theme chosen", async () => {
    await page.getByRole("link", { name: "Email templates" }).click();
    await page.getByTestId("templates-table").getByText("Email Verification").waitFor();
    await page.getByTestId("shared-server-notice").waitFor();
    expect(await page.getByRole("button", { name: "New template" }).isDisabled()).toBe(true);

    const themes = page.getByTestId("themes-table");
    expect(await themes.locator('tr[data-selected="true"]').textContent()).toContain("Default Light");
    await page.getByRole("button", { name: "Use as default: Default Dark" }).click();
    await themes.locator('tr[data-selected="true"]', { hasText: "Default Dark" }).waitFor();
    expect((await (await project()).getConfig()) as { emails: { selectedThemeId: string } }).toMatchObject({
      emails: { selectedThemeId: DEFAULT_DARK_THEME_ID },
    });
    await screenshot(page, "60-email-templates-shared");
    await page.getByRole("button", { name: "Use as default: Default Light" }).click();
    await themes.locator('tr[data-selected="true"]', { hasText: "Default Light" }).waitFor();
    expect(
      ((await (await project()).getConfig()) as { emails: { selectedThemeId: string } }).emails,
    ).toMatchObject({ selectedThemeId: DEFAULT_LIGHT_THEME_ID });

    // A template opens for preview, with the notice and no way to save.
    await themes
      .page()
      .getByTestId("templates-table")
      .getByRole("link", { name: "Email Verification" })
      .click();
    await page.getByTestId("shared-server-notice").getByRole("link", { name: "Email page" }).waitFor();
    await previewSettled();
    expect(await previewHtml()).toContain("Confirm your email address");
    expect(await page.getByRole("button", { name: "Save" }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Reset to default" }).count()).toBe(0);
  });

  it("with the owner's SMTP server: edits the verification email, the preview follows, and it saves", async () => {
    await go("email");
    await page.locator('select[name="emailType"]').selectOption("standard");
    await page.locator('input[name="smtpHost"]').fill("127.0.0.1");
    await page.locator('input[name="smtpPort"]').fill(String(smtp.port));
    await page.locator('input[name="senderEmail"]').fill("noreply@templates.example.com");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Email server saved").waitFor();
    expect((await project()).config.emailConfig).toMatchObject({ type: "standard", port: smtp.port });

    await go("email-templates");
    await page.getByTestId("templates-table").getByRole("link", { name: "Email Verification" }).click();
    await previewSettled();
    expect(await page.getByTestId("shared-server-notice").count()).toBe(0);
    expect(await page.getByTestId("preview-subject").textContent()).toBe("Verify your email at My Project");
    expect(await previewHtml()).toContain("Confirm your email address");

    const edited = SHIPPED.replace("Confirm your email address", "Welcome aboard, confirm your address");
    await typeSource(edited);
    await page.getByTestId("unsaved").waitFor();
    await expect.poll(previewHtml).toContain("Welcome aboard, confirm your address");
    await previewSettled();
    await screenshot(page, "61-email-template-editor-light");

    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Email Verification saved").waitFor();
    expect(await storedSource()).toBe(edited);
    expect(await page.getByTestId("unsaved").count()).toBe(0);

    // The next real verification email carries the edit, received by the owner's SMTP server.
    const reader = await (await admin()).createUser({ primaryEmail: "reader@templates.example.com" });
    const [channel] = await reader.listContactChannels();
    await channel!.sendVerificationEmail({ callbackUrl: `${env.baseUrl}/handler/email-verification` });
    const received = await smtp.waitForMessageTo("reader@templates.example.com");
    expect(received.subject).toBe("Verify your email at Template project");
    expect(received.html).toContain("Welcome aboard, confirm your address");
    expect(received.text).toMatch(/\/handler\/email-verification\?code=[0-9a-z]{45}/);

    // "Send a test" mails what the preview shows, unsaved changes included, marked as a test.
    await typeSource(edited.replace("Welcome aboard", "Testing aboard"));
    await page.locator('input[name="testRecipient"]').fill("tester@templates.example.com");
    await page.getByRole("button", { name: "Send test" }).click();
    await page.getByText("Test sent to tester@templates.example.com").waitFor();
    const test = await smtp.waitForMessageTo("tester@templates.example.com");
    expect(test.subject).toBe("[Test] Verify your email at Template project");
    expect(test.html).toContain("Testing aboard, confirm your address");
    await typeSource(edited);
    // The toasts go away by themselves; the next picture should show the page alone.
    await expect.poll(() => page.locator(".toast").count()).toBe(0);

    // Dark: the dashboard's dark mode and the preview in the Default Dark theme, then a phone's width.
    await page.getByTestId("theme-toggle").click();
    await page.locator('select[name="previewTheme"]').selectOption(DEFAULT_DARK_THEME_ID);
    await expect.poll(previewHtml).toContain("background-color:#09090b");
    await previewSettled();
    await screenshot(page, "62-email-template-editor-dark");
    await page.getByRole("button", { name: "Mobile" }).click();
    expect(await preview().evaluate((frame) => frame.getBoundingClientRect().width)).toBe(390);
    expect(await preview().getAttribute("sandbox")).toBe("");
    await screenshot(page, "63-email-template-preview-mobile-dark");
    await page.getByTestId("theme-toggle").click();
    // The whole story of one template, with three sandboxed renders and two emails over SMTP: 22 s on an idle CI
    // machine, and over the default 30 s on a loaded one.
  }, 60_000);

  it("resets the edited template to the source Gatehouse ships", async () => {
    await go(`email-templates/templates/${VERIFICATION}`);
    await previewSettled();
    expect(await previewHtml()).toContain("Welcome aboard");
    await page.getByRole("button", { name: "Reset to default" }).click();
    await page.locator(".modal").getByRole("button", { name: "Reset to default" }).click();
    await page.getByText("Email Verification reset to default").waitFor();
    expect(await storedSource()).toBe(SHIPPED);
    await expect.poll(previewHtml).toContain("Confirm your email address");
    expect(await page.getByTestId("code-editor").textContent()).toContain("Confirm your email address");
  });

  it("shows a template that does not compile in words, with its line, and does not save it", async () => {
    await go(`email-templates/templates/${VERIFICATION}`);
    await previewSettled();
    const broken = SHIPPED.replace(
      "export function EmailTemplate(",
      "const broken = ;\nexport function EmailTemplate(",
    );
    const brokenLine = broken.split("\n").indexOf("const broken = ;") + 1;
    await typeSource(broken);
    const error = page.getByTestId("render-error");
    await error.waitFor();
    expect(await error.textContent()).toContain(`does not render. It does not compile. Line ${brokenLine}`);
    await page.locator(".cm-error-line").waitFor();
    expect(await page.locator(".cm-error-line").textContent()).toBe("const broken = ;");
    await screenshot(page, "64-email-template-render-error");

    await page.getByRole("button", { name: "Save" }).click();
    await page.locator('.toast[data-kind="error"]', { hasText: "does not render" }).waitFor();
    expect(await storedSource()).toBe(SHIPPED);
  });

  it("creates a theme, recolours it with the preview following, and deletes it", async () => {
    await go("email-templates");
    await page.getByRole("button", { name: "New theme" }).click();
    await page.locator('input[name="emailItemName"]').fill("Brand");
    await page.getByRole("button", { name: "Create theme" }).click();
    await page.getByRole("heading", { name: /Brand/ }).waitFor();
    const created = (await (await admin()).listEmailThemes()).find((t) => t.displayName === "Brand");
    expect(created).toBeDefined();
    await previewSettled();
    const original = (await (await admin()).getEmailTheme(created!.id)).tsxSource;
    expect(original).toContain('"page": "#f4f4f5"');
    const recoloured = original.replace('"page": "#f4f4f5"', '"page": "#fde68a"');
    await typeSource(recoloured);
    await expect.poll(previewHtml).toContain("background-color:#fde68a");
    await previewSettled();
    await screenshot(page, "65-email-theme-editor");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Brand saved").waitFor();
    expect((await (await admin()).getEmailTheme(created!.id)).tsxSource).toBe(recoloured);

    await page.getByRole("button", { name: "Delete" }).click();
    await page.locator('.modal input[name="confirm"]').fill("Brand");
    await page.locator(".modal").getByRole("button", { name: "Delete theme" }).click();
    await page.getByTestId("themes-table").waitFor();
    expect((await (await admin()).listEmailThemes()).some((t) => t.id === created!.id)).toBe(false);
  });

  it("creates a template with a theme of its own, then deletes it after typing its name", async () => {
    await go("email-templates");
    await page.getByRole("button", { name: "New template" }).click();
    await page.locator('input[name="emailItemName"]').fill("Weekly digest");
    await page.getByRole("button", { name: "Create template" }).click();
    await page.getByRole("heading", { name: /Weekly digest/ }).waitFor();
    const created = (await (await admin()).listEmailTemplates()).find(
      (t) => t.displayName === "Weekly digest",
    );
    expect(created).toBeDefined();

    await previewSettled();
    await page.locator('select[name="templateTheme"]').selectOption(DEFAULT_DARK_THEME_ID);
    await page.locator('textarea[name="previewVariables"]').fill('{ "count": 4217 }');
    await expect.poll(previewHtml).toContain("4217");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Weekly digest saved").waitFor();
    expect((await (await admin()).listEmailTemplates()).find((t) => t.id === created!.id)?.themeId).toBe(
      DEFAULT_DARK_THEME_ID,
    );

    await page.getByRole("button", { name: "Delete" }).click();
    const modal = page.locator(".modal");
    expect(await modal.getByRole("button", { name: "Delete template" }).isDisabled()).toBe(true);
    await modal.locator('input[name="confirm"]').fill("Weekly digest");
    await modal.getByRole("button", { name: "Delete template" }).click();
    await page.getByTestId("templates-table").waitFor();
    expect((await (await admin()).listEmailTemplates()).some((t) => t.id === created!.id)).toBe(false);
  });
});
