/**
 * Rendering an email from TSX: compile (compile.ts), run in the sandbox (sandbox.ts), check what came back.
 *
 * `renderEmail` takes sources; `renderTemplate` takes a project's rendered config and a template id, which is what
 * the server's own emails use (built-in sends pass the protocol's variables for each built-in template).
 * Every failure (compile, render, limits, a missing marker where one is required) is an `EmailRenderError` whose
 * message is meant for the template's author; routes answer it as EMAIL_RENDERING_ERROR.
 */
import type { RenderedConfig } from "../config/index.ts";
import { NO_THEME_SOURCE, PLACEHOLDER_THEME_SOURCE } from "./built-in-themes.ts";
import { type CompiledEmail, compileEmail, EmailCompileError } from "./compile.ts";
import { ownerLocation } from "./error-location.ts";
import {
  DEFAULT_SANDBOX_LIMITS,
  runBatchInSandbox,
  type SandboxLimits,
  type SandboxOutcome,
} from "./sandbox.ts";
import type { SandboxTenant } from "./sandbox-queue.ts";
import { isTrustedEmail, runTrusted } from "./trusted.ts";

export class EmailRenderError extends Error {
  override readonly name = "EmailRenderError";
}

export type NotificationCategoryName = "Transactional" | "Marketing";

export type ProjectLogos = {
  logoUrl?: string;
  logoFullUrl?: string;
  logoDarkModeUrl?: string;
  logoFullDarkModeUrl?: string;
};

export type EmailRenderRequest = {
  /** Whose render it is: the sandbox queues each project's renders apart, real emails first (sandbox-queue.ts). */
  tenant: SandboxTenant;
  templateSource: string;
  /** The theme's TSX; `null` renders with no theme (a bare document). */
  themeSource: string | null;
  variables?: Record<string, unknown>;
  user?: { displayName: string | null };
  project?: { displayName: string };
  /** Preview mode: default user and project names, the template's PreviewVariables, the theme's PreviewProps. */
  preview?: boolean;
  unsubscribeLink?: string;
  projectLogos?: ProjectLogos;
  /** Fail unless the template renders a `<Subject>` (and a `<NotificationCategory>`). */
  requireMarkers?: boolean;
  limits?: SandboxLimits;
};

export type RenderedEmail = {
  html: string;
  text: string;
  subject?: string;
  notificationCategory?: NotificationCategoryName;
};

/** What an HTML email may weigh; a render producing more is a runaway, not an email. */
const MAX_HTML_LENGTH = 2_000_000;

/** What differs between the recipients of one email: rendered in one sandbox run (`renderEmailBatch`). */
export type EmailRecipientInput = Pick<EmailRenderRequest, "variables" | "user" | "unsubscribeLink">;

export async function renderEmail(request: EmailRenderRequest): Promise<RenderedEmail> {
  const [outcome] = await renderEmailBatch(request, [request]);
  if (outcome instanceof EmailRenderError) throw outcome;
  return outcome!;
}

/**
 * Renders one email for many recipients: compiled once, run in one sandbox job (loading the libraries is most of a
 * render's cost). One result per recipient, in order: the rendered email or the EmailRenderError for that one (a
 * recipient's variables may fail the schema while the others pass). A compile error throws.
 */
export async function renderEmailBatch(
  shared: Omit<EmailRenderRequest, keyof EmailRecipientInput>,
  recipients: EmailRecipientInput[],
): Promise<Array<RenderedEmail | EmailRenderError>> {
  let compiled: CompiledEmail;
  try {
    compiled = await compileEmail({
      template: shared.templateSource,
      theme: shared.themeSource ?? NO_THEME_SOURCE,
    });
  } catch (error) {
    if (error instanceof EmailCompileError) throw new EmailRenderError(`Compile error: ${error.message}`);
    throw error;
  }
  const inputs = recipients.map((recipient) =>
    JSON.stringify({
      variables: recipient.variables ?? {},
      user: recipient.user ?? { displayName: shared.preview ? "John Doe" : null },
      project: shared.project ?? { displayName: "My Project" },
      preview: shared.preview ?? false,
      unsubscribeLink: recipient.unsubscribeLink,
      projectLogos: shared.projectLogos ?? {},
    }),
  );
  const theme = shared.themeSource ?? NO_THEME_SOURCE;
  const outcomes = isTrustedEmail({ template: shared.templateSource, theme })
    ? runTrusted(compiled.code, inputs)
    : await runBatchInSandbox(shared.tenant, compiled.code, inputs, shared.limits ?? DEFAULT_SANDBOX_LIMITS);
  // Loaded with the first render rather than at start (~0.06 s, ~6 MiB): many servers never send an email.
  const { toPlainText } = await import("@react-email/render");
  return Promise.all(
    outcomes.map(async (outcome) => {
      try {
        return await checkedResult(outcome, compiled, shared.requireMarkers ?? false, toPlainText);
      } catch (error) {
        if (error instanceof EmailRenderError) return error;
        throw error;
      }
    }),
  );
}

async function checkedResult(
  outcome: SandboxOutcome,
  compiled: CompiledEmail,
  requireMarkers: boolean,
  toPlainText: (html: string) => string,
): Promise<RenderedEmail> {
  if (!outcome.ok) {
    const where = outcome.stack ? await ownerLocation(compiled.sourceMap, outcome.stack) : undefined;
    throw new EmailRenderError(`Render error: ${outcome.message}${where ? ` (at ${where})` : ""}`);
  }
  const result = JSON.parse(outcome.value) as {
    html: string;
    subject?: string;
    notificationCategory?: NotificationCategoryName;
  };
  if (typeof result.html !== "string" || result.html.length > MAX_HTML_LENGTH) {
    throw new EmailRenderError("Render error: the rendered HTML is missing or larger than 2 MB.");
  }
  if (requireMarkers) {
    if (result.subject === undefined) {
      throw new EmailRenderError(
        'Render error: the template must render a <Subject value="…" /> from @stackframe/emails.',
      );
    }
    if (result.notificationCategory === undefined) {
      throw new EmailRenderError(
        'Render error: the template must render a <NotificationCategory value="Transactional" /> (or "Marketing") from @stackframe/emails.',
      );
    }
  }
  return {
    html: result.html,
    text: toPlainText(result.html),
    ...(result.subject !== undefined ? { subject: result.subject } : {}),
    ...(result.notificationCategory !== undefined
      ? { notificationCategory: result.notificationCategory }
      : {}),
  };
}

/** A template's theme choice: a theme id, `false` for none, `null`/absent for the project's selected theme. */
export type ThemeChoice = string | false | null | undefined;

/**
 * The TSX of the theme `choice` names in `config`: `null` for "no theme". An id that names no theme is an
 * `EmailRenderError` (a template pointing at a deleted theme), as is a selected theme that does not exist.
 */
export function themeSourceFor(config: RenderedConfig, choice: ThemeChoice): string | null {
  if (choice === false) return null;
  const id = choice ?? config.emails.selectedThemeId;
  const theme = Object.hasOwn(config.emails.themes, id) ? config.emails.themes[id] : undefined;
  if (!theme) throw new EmailRenderError(`Render error: there is no email theme with id ${id}.`);
  return theme.tsxSource || PLACEHOLDER_THEME_SOURCE;
}

export type TemplateRenderOptions = {
  tenant: SandboxTenant;
  user?: { displayName: string | null };
  project: { displayName: string };
  unsubscribeLink?: string;
  projectLogos?: ProjectLogos;
  /** Overrides the template's own theme choice. */
  themeId?: ThemeChoice;
  limits?: SandboxLimits;
};

/**
 * Renders the project's template `templateId` (e.g. `BUILT_IN_TEMPLATE_IDS.email_verification`) with `variables`,
 * in the template's theme, for sending: subject and notification category are required.
 */
export async function renderTemplate(
  config: RenderedConfig,
  templateId: string,
  variables: Record<string, unknown>,
  options: TemplateRenderOptions,
): Promise<RenderedEmail & { subject: string; notificationCategory: NotificationCategoryName }> {
  const template = Object.hasOwn(config.emails.templates, templateId)
    ? config.emails.templates[templateId]
    : undefined;
  if (!template)
    throw new EmailRenderError(`Render error: there is no email template with id ${templateId}.`);
  const rendered = await renderEmail({
    tenant: options.tenant,
    templateSource: template.tsxSource,
    themeSource: themeSourceFor(config, options.themeId !== undefined ? options.themeId : template.themeId),
    // The protocol injects these before the caller's own; only templates that declare them see them.
    variables: {
      projectDisplayName: options.project.displayName,
      userDisplayName: options.user?.displayName ?? "",
      ...variables,
    },
    user: options.user ?? { displayName: null },
    project: options.project,
    unsubscribeLink: options.unsubscribeLink,
    projectLogos: options.projectLogos,
    requireMarkers: true,
    limits: options.limits,
  });
  return rendered as RenderedEmail & { subject: string; notificationCategory: NotificationCategoryName };
}
