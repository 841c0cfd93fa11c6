/**
 * `POST /emails/render-email` (PROTOCOL-EXTRA §1.6): a preview of a template (stored or given as TSX) inside a
 * theme (stored, given as TSX, none, or the project's selected one), with preview names and the project's logos.
 * `editable_markers` is accepted for compatibility; the dashboard's WYSIWYG regions are not produced, so the answer
 * never carries `editable_regions`. Gatehouse extension: `variables`, an object laid over the template's
 * `PreviewVariables`, so the dashboard can preview a template with the values an owner types.
 */
import type { WireRenderedEmail } from "@gatehouse/shared";
import { z } from "zod";
import { metadataField } from "../../fields/metadata.ts";
import { defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import {
  findTemplate,
  findTheme,
  projectLogosOf,
  renderPreviewOr400,
  tags,
  tsxSourceField,
} from "./shared.ts";

const source = tsxSourceField;

const renderBody = z
  .strictObject({
    template_id: z.guid().optional(),
    template_tsx_source: source.optional(),
    theme_id: z.union([z.guid(), z.literal(false), z.null()]).optional(),
    theme_tsx_source: source.optional(),
    editable_markers: z.boolean().optional(),
    editable_source: z.enum(["template", "theme", "both"]).optional(),
    variables: metadataField.pipe(z.record(z.string(), z.unknown())).optional(),
  })
  .refine((body) => (body.template_id === undefined) !== (body.template_tsx_source === undefined), {
    error: "Give exactly one of template_id and template_tsx_source.",
  })
  .refine((body) => body.theme_id === undefined || body.theme_tsx_source === undefined, {
    error: "Give at most one of theme_id and theme_tsx_source.",
  });

export const renderRoutes = [
  defineRoute({
    method: "POST",
    path: "/emails/render-email",
    summary: "Render a template inside a theme as a preview, with its subject and notification category",
    tags,
    access: ["admin"],
    request: { body: renderBody },
    response: {
      body: wire<WireRenderedEmail>()(
        z.object({
          html: z.string(),
          subject: z.string().optional(),
          notification_category: z.string().optional(),
        }),
      ),
    },
    handler: async ({ deps, auth, body, clientIp }) => {
      const config = auth.config;
      let templateSource = body.template_tsx_source;
      if (body.template_id !== undefined) {
        const template = findTemplate(config, body.template_id);
        if (!template) throw new StatusError(400, `No email template with id ${body.template_id}.`);
        templateSource = template.tsxSource;
      }
      let themeSource: string | null;
      if (body.theme_tsx_source !== undefined) {
        themeSource = body.theme_tsx_source;
      } else if (body.theme_id === false) {
        themeSource = null;
      } else {
        const themeId = body.theme_id ?? config.emails.selectedThemeId;
        const theme = findTheme(config, themeId);
        if (!theme) throw new StatusError(400, `No email theme with id ${themeId}.`);
        themeSource = theme.tsxSource;
      }
      const rendered = await renderPreviewOr400(
        { deps, auth, clientIp },
        {
          templateSource: templateSource as string,
          themeSource,
          ...(body.variables !== undefined ? { variables: body.variables } : {}),
          projectLogos: projectLogosOf(auth.project),
        },
      );
      return {
        body: {
          html: rendered.html,
          ...(rendered.subject !== undefined ? { subject: rendered.subject } : {}),
          ...(rendered.notificationCategory !== undefined
            ? { notification_category: rendered.notificationCategory }
            : {}),
        },
      };
    },
  }),
];
