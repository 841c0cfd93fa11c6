/**
 * Email rendering from TSX: the built-in themes and templates, the compiler and the sandbox. Neutral: it knows the
 * rendered project config but nothing of HTTP or storage.
 */
export {
  BUILT_IN_TEMPLATE_IDS,
  BUILT_IN_TEMPLATES,
  type BuiltInTemplateType,
  HTML_EMAIL_TEMPLATE_SOURCE,
  NEW_DRAFT_SOURCE,
  NEW_TEMPLATE_SOURCE,
} from "./built-in-templates.ts";
export {
  BUILT_IN_THEMES,
  DEFAULT_COLORFUL_THEME_ID,
  DEFAULT_DARK_THEME_ID,
  DEFAULT_LIGHT_THEME_ID,
  DEFAULT_SELECTED_THEME_ID,
  NEW_THEME_SOURCE,
} from "./built-in-themes.ts";
export {
  type EmailRecipientInput,
  EmailRenderError,
  type EmailRenderRequest,
  type NotificationCategoryName,
  type ProjectLogos,
  type RenderedEmail,
  renderEmail,
  renderEmailBatch,
  renderTemplate,
  type TemplateRenderOptions,
  type ThemeChoice,
  themeSourceFor,
} from "./render.ts";
export { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./sandbox.ts";
export type { SandboxLane, SandboxTenant } from "./sandbox-queue.ts";
