/**
 * The admin app's email themes and templates (PROTOCOL-EXTRA §1.3, §1.4, §1.6), with the reference SDK's method
 * names and shapes, plus Gatehouse's extensions: `getEmailTheme`, `resetEmailTemplate` / `resetEmailTheme`
 * (restore a built-in's shipped source) and `renderEmailPreview` (the subject and category with the HTML, and
 * preview variables).
 */

import type {
  WireCreatedId,
  WireEmailTemplate,
  WireEmailTemplateList,
  WireEmailTemplateSaved,
  WireEmailTheme,
  WireEmailThemeList,
  WireRenderedEmail,
  WireTestEmailQueued,
} from "@gatehouse/shared";
import { BUILT_IN_EMAIL_TEMPLATE_IDS, type EmailTemplateType } from "@gatehouse/shared";
import { call, type Scope, seg } from "../objects/scope.ts";

/** A template's theme: a theme id, `false` for no theme, `null` for the project's selected theme. */
export type EmailThemeChoice = string | false | null;

export type AdminEmailTheme = { id: string; displayName: string };
export type AdminEmailThemeWithSource = AdminEmailTheme & { tsxSource: string };

export type AdminEmailTemplate = {
  id: string;
  displayName: string;
  tsxSource: string;
  /** A theme id, `false` for no theme, `null` for the project's selected theme. */
  themeId: EmailThemeChoice;
  /**
   * The reference SDK's fields from before TSX templates, kept so that code reading them still runs:
   * - `type`: the built-in template's legacy type (`email_verification`, …); null for a template an owner made;
   * - `subject`: the `<Subject value="…">` text when the source writes it as one string literal, else the display
   *   name (a subject computed from variables is only known once rendered: `renderEmailPreview`);
   * - `content`: the TSX source, which is what a template's content now is;
   * - `isDefault`: true for the built-in templates (the defaults every project has), edited or not.
   */
  type: EmailTemplateType | null;
  subject: string;
  content: string;
  isDefault: boolean;
};

/**
 * What to preview: a stored template (`templateId`) or TSX (`templateTsxSource`), inside a stored theme
 * (`themeId`; `false` for none; left out or `null` for the project's selected one) or TSX (`themeTsxSource`).
 */
export type EmailPreviewOptions = {
  templateId?: string;
  templateTsxSource?: string;
  themeId?: EmailThemeChoice;
  themeTsxSource?: string;
  /** Gatehouse extension: variables laid over the template's `PreviewVariables`. */
  variables?: Record<string, unknown>;
};

export type EmailPreview = {
  html: string;
  subject?: string;
  notificationCategory?: string;
};

const LEGACY_TYPE_BY_ID = new Map<string, EmailTemplateType>(
  Object.entries(BUILT_IN_EMAIL_TEMPLATE_IDS).map(([type, id]) => [id, type as EmailTemplateType]),
);

/** `<Subject value="…" />`, `value='…'` or `value={"…"}`: a subject written as one string literal. */
const LITERAL_SUBJECT = /<Subject\s+value=(?:\{\s*)?(["'])((?:(?!\1)[^\\]|\\.)*)\1\s*\}?\s*\/?>/;

function literalSubject(tsxSource: string): string | null {
  const match = LITERAL_SUBJECT.exec(tsxSource);
  return match ? match[2]!.replace(/\\(.)/g, "$1") : null;
}

function templateFromWire(item: WireEmailTemplate): AdminEmailTemplate {
  const type = LEGACY_TYPE_BY_ID.get(item.id) ?? null;
  return {
    id: item.id,
    displayName: item.display_name,
    tsxSource: item.tsx_source,
    themeId: item.theme_id === undefined ? null : item.theme_id,
    type,
    subject: literalSubject(item.tsx_source) ?? item.display_name,
    content: item.tsx_source,
    isDefault: type !== null,
  };
}

function previewBody(options: EmailPreviewOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (options.templateId !== undefined) body.template_id = options.templateId;
  if (options.templateTsxSource !== undefined) body.template_tsx_source = options.templateTsxSource;
  if (options.themeTsxSource !== undefined) body.theme_tsx_source = options.themeTsxSource;
  else if (options.themeId !== undefined) body.theme_id = options.themeId;
  if (options.variables !== undefined) body.variables = options.variables;
  return body;
}

/** The methods, bound to the admin scope of one project; the admin app exposes each under the same name. */
export function emailTemplateMethods(scope: Scope) {
  return {
    async listEmailThemes(): Promise<AdminEmailTheme[]> {
      const result = await call<WireEmailThemeList>(scope, "/internal/email-themes");
      return result.themes.map((theme) => ({ id: theme.id, displayName: theme.display_name }));
    },

    /** A new theme, starting from the Default Light source. */
    async createEmailTheme(displayName: string): Promise<{ id: string }> {
      const result = await call<WireCreatedId>(scope, "/internal/email-themes", {
        method: "POST",
        body: { display_name: displayName },
      });
      return { id: result.id };
    },

    async getEmailTheme(id: string): Promise<AdminEmailThemeWithSource> {
      const result = await call<WireEmailTheme>(scope, `/internal/email-themes/${seg(id)}`);
      return { id: result.id, displayName: result.display_name, tsxSource: result.tsx_source };
    },

    /** Saves a theme's TSX; it is test-rendered first (EMAIL_RENDERING_ERROR, nothing saved, if that fails). */
    async updateEmailTheme(id: string, tsxSource: string): Promise<void> {
      await call(scope, `/internal/email-themes/${seg(id)}`, {
        method: "PATCH",
        body: { tsx_source: tsxSource },
      });
    },

    /** Deletes an owner's theme; on a built-in one, drops the project's edits of it. */
    async deleteEmailTheme(id: string): Promise<void> {
      await call(scope, `/internal/email-themes/${seg(id)}`, { method: "DELETE" });
    },

    /** Gatehouse extension: restores a built-in theme's TSX to the source the server ships. */
    async resetEmailTheme(id: string): Promise<AdminEmailThemeWithSource> {
      const result = await call<WireEmailTheme>(scope, `/internal/email-themes/${seg(id)}/reset`, {
        method: "POST",
      });
      return { id: result.id, displayName: result.display_name, tsxSource: result.tsx_source };
    },

    async listEmailTemplates(): Promise<AdminEmailTemplate[]> {
      const result = await call<WireEmailTemplateList>(scope, "/internal/email-templates");
      return result.templates.map(templateFromWire);
    },

    /** A new template from the starter source; needs the project's own email server. */
    async createEmailTemplate(displayName: string): Promise<{ id: string }> {
      const result = await call<WireCreatedId>(scope, "/internal/email-templates", {
        method: "POST",
        body: { display_name: displayName },
      });
      return { id: result.id };
    },

    /**
     * Saves a template's TSX and, unless `themeId` is left out, its theme. It is test-rendered first; the answer
     * is that rendering. Needs the project's own email server.
     */
    async updateEmailTemplate(
      id: string,
      tsxSource: string,
      themeId?: EmailThemeChoice,
    ): Promise<{ renderedHtml: string }> {
      const result = await call<WireEmailTemplateSaved>(scope, `/internal/email-templates/${seg(id)}`, {
        method: "PATCH",
        body: { tsx_source: tsxSource, ...(themeId !== undefined ? { theme_id: themeId } : {}) },
      });
      return { renderedHtml: result.rendered_html };
    },

    /** Deletes an owner's template; on a built-in one, drops the project's edits of it. */
    async deleteEmailTemplate(id: string): Promise<void> {
      await call(scope, `/internal/email-templates/${seg(id)}`, { method: "DELETE" });
    },

    /** Gatehouse extension: restores a built-in template's TSX to the source the server ships. */
    async resetEmailTemplate(id: string): Promise<AdminEmailTemplate> {
      const result = await call<WireEmailTemplate>(scope, `/internal/email-templates/${seg(id)}/reset`, {
        method: "POST",
      });
      return templateFromWire(result);
    },

    /**
     * Gatehouse extension: sends a template as the preview shows it (optionally an unsaved source, another theme,
     * preview variables) to one address, marked "[Test]", through the project's own email server.
     */
    async sendEmailTemplateTest(
      id: string,
      options: {
        recipientEmail: string;
        tsxSource?: string;
        themeId?: EmailThemeChoice;
        variables?: Record<string, unknown>;
      },
    ): Promise<{ emailId: string }> {
      const result = await call<WireTestEmailQueued>(
        scope,
        `/internal/email-templates/${seg(id)}/send-test`,
        {
          method: "POST",
          body: {
            recipient_email: options.recipientEmail,
            ...(options.tsxSource !== undefined ? { tsx_source: options.tsxSource } : {}),
            ...(options.themeId !== undefined ? { theme_id: options.themeId } : {}),
            ...(options.variables !== undefined ? { variables: options.variables } : {}),
          },
        },
      );
      return { emailId: result.email_id };
    },

    /** The rendered HTML of a template inside a theme, in preview mode. */
    async getEmailPreview(options: EmailPreviewOptions): Promise<string> {
      const result = await call<WireRenderedEmail>(scope, "/emails/render-email", {
        method: "POST",
        body: previewBody(options),
      });
      return result.html;
    },

    /** Gatehouse extension: the preview with its subject and notification category. */
    async renderEmailPreview(options: EmailPreviewOptions): Promise<EmailPreview> {
      const result = await call<WireRenderedEmail>(scope, "/emails/render-email", {
        method: "POST",
        body: previewBody(options),
      });
      return {
        html: result.html,
        ...(result.subject !== undefined ? { subject: result.subject } : {}),
        ...(result.notification_category !== undefined
          ? { notificationCategory: result.notification_category }
          : {}),
      };
    },
  };
}

export type EmailTemplateMethods = ReturnType<typeof emailTemplateMethods>;
