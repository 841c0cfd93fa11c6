/**
 * `/internal/email-themes` (PROTOCOL-EXTRA §1.3): themes live in the config (`emails.themes.<uuid>`), the built-in
 * ones as defaults. PATCH test-renders the new source before saving it. DELETE, which the protocol's SDK calls,
 * removes an owner's theme, and on a built-in theme drops the owner's edits (the built-in comes back).
 */

import { randomUUID } from "node:crypto";
import type { WireCreatedId, WireEmailThemeList } from "@gatehouse/shared";
import { z } from "zod";
import { NEW_THEME_SOURCE } from "../../email-rendering/index.ts";
import { defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import {
  emailDisplayNameField,
  projectLogosOf,
  renderPreviewOr400,
  tags,
  themeOr404,
  themeView,
  tsxSourceField,
  writeEmailsConfig,
} from "./shared.ts";

/** What a theme is test-rendered around before it is saved: a template that uses every marker. */
const THEME_PREVIEW_TEMPLATE = `import { Heading, Text } from "@react-email/components";
import { NotificationCategory, Subject, type Props } from "@stackframe/emails";

export function EmailTemplate({ project }: Props) {
  return (
    <>
      <Subject value={\`A preview from \${project.displayName}\`} />
      <NotificationCategory value="Transactional" />
      <Heading as="h1">Theme preview</Heading>
      <Text>This text stands in for the content of an email.</Text>
    </>
  );
}
`;

const idParams = z.strictObject({ theme_id: z.string().min(1).max(100) });

export const themeRoutes = [
  defineRoute({
    method: "GET",
    path: "/internal/email-themes",
    summary: "List the project's email themes (the built-in ones included)",
    tags,
    access: ["admin"],
    response: {
      body: wire<WireEmailThemeList>()(
        z.object({ themes: z.array(z.object({ id: z.string(), display_name: z.string() })) }),
      ),
    },
    handler: async ({ auth }) => ({
      body: {
        themes: Object.entries(auth.config.emails.themes).map(([id, theme]) => ({
          id,
          display_name: theme.displayName,
        })),
      },
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/internal/email-themes",
    summary: "Create an email theme, starting from the Default Light source",
    tags,
    access: ["admin"],
    request: { body: z.strictObject({ display_name: emailDisplayNameField }) },
    response: { body: wire<WireCreatedId>()(z.object({ id: z.string() })) },
    handler: async ({ deps, auth, body }) => {
      const id = randomUUID();
      await writeEmailsConfig(deps, auth.project.id, {
        [`emails.themes.${id}`]: { displayName: body.display_name, tsxSource: NEW_THEME_SOURCE },
      });
      return { body: { id } };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/internal/email-themes/:theme_id",
    summary: "Read an email theme with its TSX source",
    tags,
    access: ["admin"],
    request: { params: idParams },
    response: {
      body: themeView,
    },
    handler: async ({ auth, params }) => {
      const theme = themeOr404(auth.config, params.theme_id);
      return { body: { id: params.theme_id, display_name: theme.displayName, tsx_source: theme.tsxSource } };
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/internal/email-themes/:theme_id",
    summary: "Replace an email theme's TSX source; it is test-rendered first and saved only if that works",
    tags,
    access: ["admin"],
    request: {
      params: idParams,
      body: z.strictObject({ tsx_source: tsxSourceField }),
    },
    response: { body: z.object({ display_name: z.string() }) },
    handler: async ({ deps, auth, params, body, clientIp }) => {
      const theme = themeOr404(auth.config, params.theme_id);
      await renderPreviewOr400(
        { deps, auth, clientIp },
        {
          templateSource: THEME_PREVIEW_TEMPLATE,
          themeSource: body.tsx_source,
          projectLogos: projectLogosOf(auth.project),
        },
      );
      await writeEmailsConfig(deps, auth.project.id, {
        [`emails.themes.${params.theme_id}.tsxSource`]: body.tsx_source,
      });
      return { body: { display_name: theme.displayName } };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/internal/email-themes/:theme_id",
    summary: "Delete an email theme (on a built-in theme: drop the project's edits of it)",
    tags,
    access: ["admin"],
    request: { params: idParams },
    response: { body: z.object({}) },
    handler: async ({ deps, auth, params }) => {
      themeOr404(auth.config, params.theme_id);
      if (auth.config.emails.selectedThemeId === params.theme_id) {
        throw new StatusError(
          400,
          "This theme is the project's selected theme; select another one before deleting it.",
        );
      }
      await writeEmailsConfig(deps, auth.project.id, { [`emails.themes.${params.theme_id}`]: null });
      return { body: {} };
    },
  }),
];
