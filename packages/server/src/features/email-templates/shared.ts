/**
 * What the theme, template and render-email routes share: looking entries up in the rendered config, writing them
 * (environment-level overrides, PROTOCOL-EXTRA §1.3/§1.4), rendering with errors answered as EMAIL_RENDERING_ERROR
 * (previews limited per owner and queued in the project's preview lane of the sandbox), and the project's logos as
 * theme props.
 */
import type { WireEmailTemplate, WireEmailTheme } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import type { ConfigOverride, RenderedConfig } from "../../config/index.ts";
import type { AppDeps } from "../../deps.ts";
import {
  EmailRenderError,
  type EmailRenderRequest,
  type ProjectLogos,
  renderEmail,
  type SandboxTenant,
} from "../../email-rendering/index.ts";
import { displayNameField, storableText } from "../../fields/text.ts";
import { ownerKeyOf, type RequestAuth } from "../../http/request-auth.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { patchConfigOverride } from "../projects/config-store.ts";
import type { ProjectRow } from "../projects/schema.ts";

export const tags = ["Email templates"];

export const templateIdParams = z.strictObject({
  templateId: z.guid({ error: "templateId must be a UUID" }),
});

/** A template as the admin routes answer it (list, read, reset). */
export const templateView = wire<WireEmailTemplate>()(
  z.object({
    id: z.string(),
    display_name: z.string(),
    tsx_source: z.string(),
    theme_id: z.union([z.string(), z.literal(false), z.null()]).optional(),
  }),
);

/** A theme with its source, as reading or resetting one answers it. */
export const themeView = wire<WireEmailTheme>()(
  z.object({ id: z.string(), display_name: z.string(), tsx_source: z.string() }),
);

export type ThemeEntry = RenderedConfig["emails"]["themes"][string];
export type TemplateEntry = RenderedConfig["emails"]["templates"][string];

function own<T>(record: Record<string, T>, id: string): T | undefined {
  return Object.hasOwn(record, id) ? record[id] : undefined;
}

/** The theme `id`, or a plain 404 (PROTOCOL-EXTRA §1.3). */
export function themeOr404(config: RenderedConfig, id: string): ThemeEntry {
  const theme = own(config.emails.themes, id);
  if (!theme) throw new StatusError(404, `No email theme with id ${id}.`);
  return theme;
}

/** The template `id`, or a plain 404 (PROTOCOL-EXTRA §1.4). */
export function templateOr404(config: RenderedConfig, id: string): TemplateEntry {
  const template = own(config.emails.templates, id);
  if (!template) throw new StatusError(404, `No email template with id ${id}.`);
  return template;
}

export function findTheme(config: RenderedConfig, id: string): ThemeEntry | undefined {
  return own(config.emails.themes, id);
}

export function findTemplate(config: RenderedConfig, id: string): TemplateEntry | undefined {
  return own(config.emails.templates, id);
}

/** Template writes need the project's own email server: the shared one sends only the built-in templates. */
export function requireCustomEmailServer(config: RenderedConfig): void {
  if (config.emails.server.isShared) throw knownError("REQUIRES_CUSTOM_EMAIL_SERVER");
}

/** Writes keys (dot notation below `emails`) to the environment override, as the protocol stores emails config. */
export function writeEmailsConfig(deps: AppDeps, projectId: string, patch: ConfigOverride) {
  return patchConfigOverride(deps, projectId, "environment", patch);
}

export function projectLogosOf(project: ProjectRow): ProjectLogos {
  const logos: ProjectLogos = {};
  if (project.logoUrl) logos.logoUrl = project.logoUrl;
  if (project.logoFullUrl) logos.logoFullUrl = project.logoFullUrl;
  if (project.logoDarkModeUrl) logos.logoDarkModeUrl = project.logoDarkModeUrl;
  if (project.logoFullDarkModeUrl) logos.logoFullDarkModeUrl = project.logoFullDarkModeUrl;
  return logos;
}

/** Renders, answering any compile, render or limit failure as EMAIL_RENDERING_ERROR (400) with its message. */
export async function renderOr400(request: EmailRenderRequest) {
  try {
    return await renderEmail(request);
  } catch (error) {
    if (error instanceof EmailRenderError)
      throw knownError("EMAIL_RENDERING_ERROR", { error: error.message });
    throw error;
  }
}

/** An owner's render of the project (editor previews, test renders, test sends) in the sandbox's preview lane. */
export function previewTenant(projectId: string): SandboxTenant {
  return { projectId, lane: "preview" };
}

/** The caller of a preview route, as its handler gets them. */
export type PreviewCaller = { deps: AppDeps; auth: RequestAuth; clientIp: string | null };

/**
 * A preview for the owner calling (render-email, the test render of a theme or template save): counted against
 * `emailPreviewPerOwner` first, then rendered in preview mode in the project's preview lane, failures as 400s.
 */
export async function renderPreviewOr400(
  caller: PreviewCaller,
  request: Omit<EmailRenderRequest, "tenant" | "preview">,
) {
  const { deps, auth, clientIp } = caller;
  await consumeRateLimit(
    rateLimitScope(deps, auth, clientIp),
    RATE_LIMITS.emailPreviewPerOwner,
    ownerKeyOf(auth),
  );
  return renderOr400({ ...request, preview: true, tenant: previewTenant(auth.project.id) });
}

/** TSX sources may be long, but not unbounded: the whole config is read on every request. */
export const MAX_TSX_SOURCE_LENGTH = 200_000;

/** A TSX source as stored in the config (jsonb: no NUL characters or lone surrogates). */
export const tsxSourceField = storableText(MAX_TSX_SOURCE_LENGTH);

/** A theme's or template's display name. */
export const emailDisplayNameField = displayNameField.pipe(z.string().trim().min(1));
