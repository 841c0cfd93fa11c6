import { z } from "zod";
import {
  type ConfigOverride,
  type LevelOverrides,
  mergeOverrideOverride,
  type RenderedConfig,
  removeKeys,
  renderConfig,
} from "../../config/index.ts";
import type { AppDeps } from "../../deps.ts";
import { BUILT_IN_TEMPLATES, BUILT_IN_THEMES } from "../../email-rendering/index.ts";
import { defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { updateConfigOverride } from "../projects/config-store.ts";
import {
  findTemplate,
  findTheme,
  requireCustomEmailServer,
  tags,
  templateIdParams,
  templateView,
  themeView,
} from "./shared.ts";

const themeIdParams = z.strictObject({ theme_id: z.string().min(1).max(100) });

/**
 * Restores the shipped `source` at `emails.<kind>.<id>.tsxSource`: the environment's own edit goes, and the
 * shipped source is written only if a lower level would still differ from it.
 */
function restoreSource(
  deps: AppDeps,
  projectId: string,
  kind: "templates" | "themes",
  id: string,
  source: string,
): Promise<RenderedConfig> {
  const key = `emails.${kind}.${id}.tsxSource`;
  const sourceIn = (config: RenderedConfig) =>
    kind === "templates" ? findTemplate(config, id)?.tsxSource : findTheme(config, id)?.tsxSource;
  return updateConfigOverride(deps, projectId, "environment", (current, levels) => {
    const without: ConfigOverride = removeKeys(current, [key]);
    const rendered = renderConfig({ ...(levels as LevelOverrides), environment: without });
    if (rendered.ok && sourceIn(rendered.config) === source) return without;
    return mergeOverrideOverride(without, { [key]: source });
  });
}

export const resetRoutes = [
  defineRoute({
    method: "POST",
    path: "/internal/email-templates/:templateId/reset",
    summary:
      "Gatehouse extension: restore a built-in email template's TSX to the source this server ships (needs a custom email server)",
    tags,
    access: ["admin"],
    request: { params: templateIdParams },
    response: { body: templateView },
    handler: async ({ deps, auth, params }) => {
      requireCustomEmailServer(auth.config);
      const builtIn = BUILT_IN_TEMPLATES.find((template) => template.id === params.templateId);
      if (!builtIn) throw new StatusError(404, `No built-in email template with id ${params.templateId}.`);
      const config = await restoreSource(deps, auth.project.id, "templates", builtIn.id, builtIn.tsxSource);
      const template = findTemplate(config, builtIn.id);
      return {
        body: {
          id: builtIn.id,
          display_name: template?.displayName ?? builtIn.displayName,
          tsx_source: template?.tsxSource ?? builtIn.tsxSource,
          ...(template?.themeId !== undefined ? { theme_id: template.themeId } : {}),
        },
      };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/internal/email-themes/:theme_id/reset",
    summary: "Gatehouse extension: restore a built-in email theme's TSX to the source this server ships",
    tags,
    access: ["admin"],
    request: { params: themeIdParams },
    response: {
      body: themeView,
    },
    handler: async ({ deps, auth, params }) => {
      const builtIn = BUILT_IN_THEMES.find((theme) => theme.id === params.theme_id);
      if (!builtIn) throw new StatusError(404, `No built-in email theme with id ${params.theme_id}.`);
      const config = await restoreSource(deps, auth.project.id, "themes", builtIn.id, builtIn.tsxSource);
      const theme = findTheme(config, builtIn.id);
      return {
        body: {
          id: builtIn.id,
          display_name: theme?.displayName ?? builtIn.displayName,
          tsx_source: theme?.tsxSource ?? builtIn.tsxSource,
        },
      };
    },
  }),
];
