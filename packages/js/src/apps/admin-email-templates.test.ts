import { isKnownError } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BUILT_IN_TEMPLATE_IDS,
  BUILT_IN_TEMPLATES,
  BUILT_IN_THEMES,
  DEFAULT_DARK_THEME_ID,
  DEFAULT_LIGHT_THEME_ID,
  NEW_TEMPLATE_SOURCE,
  NEW_THEME_SOURCE,
} from "../../../server/src/email-rendering/index.ts";
import { appsFor } from "../testing/apps.ts";
import { GREETING_TEMPLATE } from "../testing/email-templates.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";
import type { GatehouseAdminApp } from "./admin-app.ts";

let gh: RunningGatehouse;
/** A project on its own SMTP server (template writes need one) and one on the shared server. */
let custom: GatehouseAdminApp;
let shared: GatehouseAdminApp;

beforeAll(async () => {
  gh = await startGatehouse();
  const customProject = await gh.createProject("SDK templates, own server");
  await customProject.configure({
    "emails.server": { isShared: false, host: "127.0.0.1", port: 2525, senderEmail: "noreply@example.com" },
  });
  custom = appsFor(gh, customProject).admin();
  shared = appsFor(gh, await gh.createProject("SDK templates, shared server")).admin();
});
afterAll(() => gh?.close());

const VERIFICATION = BUILT_IN_TEMPLATE_IDS.email_verification;
const shippedTemplate = (id: string) => BUILT_IN_TEMPLATES.find((t) => t.id === id)!.tsxSource;
const shippedTheme = (id: string) => BUILT_IN_THEMES.find((t) => t.id === id)!.tsxSource;

const TEMPLATE = `${GREETING_TEMPLATE}
EmailTemplate.PreviewVariables = { name: "Preview person" };`;

const THEME = `import { Body, Html } from "@react-email/components";
export function EmailTheme({ children }) {
  return <Html><Body><main data-theme="sdk">{children}</main></Body></Html>;
}`;

async function expectKnownError(promise: Promise<unknown>, code: string) {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(isKnownError(error, code as never), `expected ${code}, got ${String(error)}`).toBe(true);
  return error;
}

describe("email themes", () => {
  it("lists the built-in themes", async () => {
    expect(await shared.listEmailThemes()).toEqual(
      BUILT_IN_THEMES.map((theme) => ({ id: theme.id, displayName: theme.displayName })),
    );
  });

  it("creates, reads, updates and deletes a theme", async () => {
    const { id } = await shared.createEmailTheme("Brand");
    expect(await shared.getEmailTheme(id)).toEqual({ id, displayName: "Brand", tsxSource: NEW_THEME_SOURCE });
    expect((await shared.listEmailThemes()).some((theme) => theme.id === id)).toBe(true);

    await shared.updateEmailTheme(id, THEME);
    expect((await shared.getEmailTheme(id)).tsxSource).toBe(THEME);

    await shared.deleteEmailTheme(id);
    expect((await shared.listEmailThemes()).some((theme) => theme.id === id)).toBe(false);
  });

  it("refuses a theme that does not render, keeping the saved one", async () => {
    const error = await expectKnownError(
      shared.updateEmailTheme(
        DEFAULT_DARK_THEME_ID,
        "export function EmailTheme() {\n  const x = ;\n  return null;\n}",
      ),
      "EMAIL_RENDERING_ERROR",
    );
    expect(String((error as { details?: { error?: string } }).details?.error)).toMatch(/theme\.tsx:2/);
    expect((await shared.getEmailTheme(DEFAULT_DARK_THEME_ID)).tsxSource).toBe(
      shippedTheme(DEFAULT_DARK_THEME_ID),
    );
  });

  it("resets an edited built-in theme to its shipped source", async () => {
    await shared.updateEmailTheme(DEFAULT_DARK_THEME_ID, THEME);
    const reset = await shared.resetEmailTheme(DEFAULT_DARK_THEME_ID);
    expect(reset).toEqual({
      id: DEFAULT_DARK_THEME_ID,
      displayName: "Default Dark",
      tsxSource: shippedTheme(DEFAULT_DARK_THEME_ID),
    });
    expect((await shared.getEmailTheme(DEFAULT_DARK_THEME_ID)).tsxSource).toBe(
      shippedTheme(DEFAULT_DARK_THEME_ID),
    );
  });
});

describe("email templates", () => {
  it("lists the built-in templates with their sources", async () => {
    const templates = await custom.listEmailTemplates();
    expect(templates.map((t) => t.id)).toEqual(BUILT_IN_TEMPLATES.map((t) => t.id));
    expect(templates.find((t) => t.id === VERIFICATION)).toEqual({
      id: VERIFICATION,
      displayName: "Email Verification",
      tsxSource: shippedTemplate(VERIFICATION),
      themeId: null,
      // The reference SDK's legacy fields; the built-in's subject is computed, so the display name stands in.
      type: "email_verification",
      subject: "Email Verification",
      content: shippedTemplate(VERIFICATION),
      isDefault: true,
    });
    expect(templates.map((t) => t.type)).toEqual(BUILT_IN_TEMPLATES.map((t) => t.type));
    expect(templates.every((t) => t.isDefault)).toBe(true);
  });

  it("gives an owner's template the legacy fields: no type, not a default, its literal subject", async () => {
    const { id } = await custom.createEmailTemplate("Literal subject");
    const literal = TEMPLATE.replace(
      '<Subject value={"Hello " + variables.name} />',
      '<Subject value="It\'s here" />',
    );
    expect(literal).not.toBe(TEMPLATE);
    await custom.updateEmailTemplate(id, literal);
    expect((await custom.listEmailTemplates()).find((t) => t.id === id)).toMatchObject({
      type: null,
      subject: "It's here",
      content: literal,
      isDefault: false,
    });
    await custom.deleteEmailTemplate(id);
  });

  it("creates, updates (with a theme choice) and deletes a template", async () => {
    const { id } = await custom.createEmailTemplate("Weekly digest");
    expect((await custom.listEmailTemplates()).find((t) => t.id === id)).toEqual({
      id,
      displayName: "Weekly digest",
      tsxSource: NEW_TEMPLATE_SOURCE,
      themeId: null,
      type: null,
      subject: "Weekly digest",
      content: NEW_TEMPLATE_SOURCE,
      isDefault: false,
    });

    const { renderedHtml } = await custom.updateEmailTemplate(id, TEMPLATE, false);
    expect(renderedHtml).toContain("Greetings, Preview person");
    expect((await custom.listEmailTemplates()).find((t) => t.id === id)).toMatchObject({
      tsxSource: TEMPLATE,
      themeId: false,
    });
    // Leaving the theme out keeps the one stored.
    await custom.updateEmailTemplate(id, TEMPLATE);
    expect((await custom.listEmailTemplates()).find((t) => t.id === id)?.themeId).toBe(false);
    await custom.updateEmailTemplate(id, TEMPLATE, DEFAULT_DARK_THEME_ID);
    expect((await custom.listEmailTemplates()).find((t) => t.id === id)?.themeId).toBe(DEFAULT_DARK_THEME_ID);

    await custom.deleteEmailTemplate(id);
    expect((await custom.listEmailTemplates()).some((t) => t.id === id)).toBe(false);
  });

  it("resets an edited built-in template to its shipped source", async () => {
    await custom.updateEmailTemplate(VERIFICATION, TEMPLATE);
    expect((await custom.listEmailTemplates()).find((t) => t.id === VERIFICATION)?.tsxSource).toBe(TEMPLATE);
    const reset = await custom.resetEmailTemplate(VERIFICATION);
    expect(reset).toMatchObject({ id: VERIFICATION, tsxSource: shippedTemplate(VERIFICATION) });
    expect((await custom.listEmailTemplates()).find((t) => t.id === VERIFICATION)?.tsxSource).toBe(
      shippedTemplate(VERIFICATION),
    );
  });

  it("refuses template writes on the shared email server", async () => {
    await expectKnownError(shared.createEmailTemplate("Nope"), "REQUIRES_CUSTOM_EMAIL_SERVER");
    await expectKnownError(
      shared.updateEmailTemplate(VERIFICATION, TEMPLATE),
      "REQUIRES_CUSTOM_EMAIL_SERVER",
    );
    await expectKnownError(shared.deleteEmailTemplate(VERIFICATION), "REQUIRES_CUSTOM_EMAIL_SERVER");
    await expectKnownError(shared.resetEmailTemplate(VERIFICATION), "REQUIRES_CUSTOM_EMAIL_SERVER");
  });
});

describe("previews", () => {
  it("renders a stored template in the selected theme, or TSX in a given theme", async () => {
    const stored = await shared.getEmailPreview({ templateId: VERIFICATION });
    expect(stored).toContain("Hi John Doe,");
    expect(stored).toContain("background-color:#f4f4f5"); // Default Light's page colour

    const inline = await shared.getEmailPreview({ templateTsxSource: TEMPLATE, themeTsxSource: THEME });
    expect(inline).toContain('<main data-theme="sdk">');
    expect(inline).toContain("Greetings, Preview person");

    const dark = await shared.getEmailPreview({ templateId: VERIFICATION, themeId: DEFAULT_DARK_THEME_ID });
    expect(dark).toContain("background-color:#09090b");
    const bare = await shared.getEmailPreview({ templateId: VERIFICATION, themeId: false });
    expect(bare).not.toContain("background-color:#f4f4f5");
  });

  it("gives the subject and category, with the variables given laid over the preview ones", async () => {
    const preview = await shared.renderEmailPreview({
      templateTsxSource: TEMPLATE,
      themeId: DEFAULT_LIGHT_THEME_ID,
      variables: { name: "Ada" },
    });
    expect(preview.subject).toBe("Hello Ada");
    expect(preview.notificationCategory).toBe("Transactional");
    expect(preview.html).toContain("Greetings, Ada");
  });

  it("answers a template that fails to render with EMAIL_RENDERING_ERROR and its line", async () => {
    const broken = "export function EmailTemplate() {\n  const x = ;\n  return null;\n}";
    const error = await expectKnownError(
      shared.getEmailPreview({ templateTsxSource: broken }),
      "EMAIL_RENDERING_ERROR",
    );
    expect(String((error as { details?: { error?: string } }).details?.error)).toMatch(/template\.tsx:2/);
  });
});
