/**
 * `/internal/email-templates` (PROTOCOL-EXTRA §1.4): templates live in the config (`emails.templates.<uuid>`), the
 * built-in ones as defaults. Writing needs the project's own email server (REQUIRES_CUSTOM_EMAIL_SERVER): with the
 * shared one, the rendered templates are always the built-in set. DELETE on a built-in template drops the
 * project's edits, which brings the built-in back.
 */

import { randomUUID } from "node:crypto";
import type { WireCreatedId, WireEmailTemplateSaved } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import type { JsonObject } from "../../config/index.ts";
import { NEW_TEMPLATE_SOURCE } from "../../email-rendering/index.ts";
import { defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import {
  emailDisplayNameField,
  findTheme,
  projectLogosOf,
  renderPreviewOr400,
  requireCustomEmailServer,
  tags,
  templateIdParams,
  templateOr404,
  templateView,
  tsxSourceField,
  writeEmailsConfig,
} from "./shared.ts";

/** A theme id, `false` for no theme, `null` for the project's selected theme. */
const themeIdField = z.union([z.guid(), z.literal(false), z.null()]);

export const templateRoutes = [
  defineRoute({
    method: "GET",
    path: "/internal/email-templates",
    summary: "List the project's email templates with their TSX sources",
    tags,
    access: ["admin"],
    response: { body: z.object({ templates: z.array(templateView) }) },
    handler: async ({ auth }) => ({
      body: {
        templates: Object.entries(auth.config.emails.templates).map(([id, template]) => ({
          id,
          display_name: template.displayName,
          tsx_source: template.tsxSource,
          ...(template.themeId !== undefined ? { theme_id: template.themeId } : {}),
        })),
      },
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/internal/email-templates",
    summary: "Create an email template from the starter source (needs a custom email server)",
    tags,
    access: ["admin"],
    request: { body: z.strictObject({ display_name: emailDisplayNameField }) },
    response: { body: wire<WireCreatedId>()(z.object({ id: z.string() })) },
    handler: async ({ deps, auth, body }) => {
      requireCustomEmailServer(auth.config);
      // A template is created by its name, so a second of the same name is the one that exists (README: deliberate
      // differences; the reference raises this code when a template of a legacy type is created twice).
      const name = body.display_name.toLowerCase();
      if (
        Object.values(auth.config.emails.templates).some((t) => t.displayName.trim().toLowerCase() === name)
      ) {
        throw knownError("EMAIL_TEMPLATE_ALREADY_EXISTS");
      }
      const id = randomUUID();
      await writeEmailsConfig(deps, auth.project.id, {
        [`emails.templates.${id}`]: { displayName: body.display_name, tsxSource: NEW_TEMPLATE_SOURCE },
      });
      return { body: { id } };
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/internal/email-templates/:templateId",
    summary:
      "Replace an email template's TSX (and theme); it is test-rendered first and saved only if that works",
    tags,
    access: ["admin"],
    request: {
      params: templateIdParams,
      body: z.strictObject({
        tsx_source: tsxSourceField,
        theme_id: themeIdField.optional(),
      }),
    },
    response: { body: wire<WireEmailTemplateSaved>()(z.object({ rendered_html: z.string() })) },
    handler: async ({ deps, auth, params, body, clientIp }) => {
      requireCustomEmailServer(auth.config);
      templateOr404(auth.config, params.templateId);
      if (typeof body.theme_id === "string" && !findTheme(auth.config, body.theme_id)) {
        throw new StatusError(400, `No email theme with id ${body.theme_id}.`);
      }
      // The protocol test-renders with the selected theme, whatever theme the template names.
      const selected = findTheme(auth.config, auth.config.emails.selectedThemeId);
      const rendered = await renderPreviewOr400(
        { deps, auth, clientIp },
        {
          templateSource: body.tsx_source,
          themeSource: selected?.tsxSource ?? null,
          variables: { projectDisplayName: auth.project.displayName },
          projectLogos: projectLogosOf(auth.project),
          requireMarkers: true,
        },
      );
      const patch: JsonObject = { [`emails.templates.${params.templateId}.tsxSource`]: body.tsx_source };
      if (body.theme_id !== undefined) patch[`emails.templates.${params.templateId}.themeId`] = body.theme_id;
      await writeEmailsConfig(deps, auth.project.id, patch);
      return { body: { rendered_html: rendered.html } };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/internal/email-templates/:templateId",
    summary: "Delete an email template (on a built-in template: drop the project's edits of it)",
    tags,
    access: ["admin"],
    request: { params: templateIdParams },
    response: { body: z.object({}) },
    handler: async ({ deps, auth, params }) => {
      requireCustomEmailServer(auth.config);
      templateOr404(auth.config, params.templateId);
      await writeEmailsConfig(deps, auth.project.id, { [`emails.templates.${params.templateId}`]: null });
      return { body: {} };
    },
  }),
];
