/**
 * `/internal/email-drafts` (PROTOCOL-EXTRA §1.5), admin only. A draft names a theme of the project's config, `false`
 * for none, or nothing for the project's selected theme; sending is `POST /emails/send-email {draft_id}`.
 */
import type { WireCreatedId, WireEmailDraft } from "@gatehouse/shared";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import { displayNameField, storableText } from "../../fields/text.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { createDraft, deleteDraft, draftOr404, draftView, listDrafts, updateDraft } from "./service.ts";

const tags = ["Email drafts"];
const admin = routeGroup({ tags, access: ["admin"] });

/** As long as a template's TSX (the config's limit), though drafts are stored in their own table. */
const tsxSourceField = storableText(200_000);
const themeIdField = z.union([z.guid(), z.literal(false), z.null()]);
const idParams = z.strictObject({ id: z.string().max(100) });

const draftSchema = wire<WireEmailDraft>()(
  z.object({
    id: z.string(),
    display_name: z.string(),
    tsx_source: z.string(),
    theme_id: z.union([z.string(), z.literal(false)]).optional(),
    sent_at_millis: z.number().nullable(),
  }),
);
const ok = z.object({ ok: z.literal("ok") });

/** A theme id must name a theme of the project (a plain 400, as send-email answers an unknown theme). */
function checkTheme(config: RenderedConfig, themeId: string | false | null | undefined) {
  if (typeof themeId === "string" && !Object.hasOwn(config.emails.themes, themeId)) {
    throw new StatusError(400, `No email theme with id ${themeId}.`);
  }
}

export const emailDraftRoutes = [
  admin.get("/internal/email-drafts", {
    summary: "List the project's email drafts, most recently edited first",
    response: { body: z.object({ drafts: z.array(draftSchema) }) },
    handler: async ({ deps, auth }) => ({
      body: { drafts: (await listDrafts(deps, auth.project.id)).map(draftView) },
    }),
  }),
  admin.post("/internal/email-drafts", {
    summary: "Create an email draft (from a Marketing starter unless a TSX source is given)",
    request: {
      body: z.strictObject({
        display_name: displayNameField,
        theme_id: themeIdField.optional(),
        tsx_source: tsxSourceField.optional(),
      }),
    },
    response: { body: wire<WireCreatedId>()(z.object({ id: z.string() })) },
    handler: async ({ deps, auth, body }) => {
      checkTheme(auth.config, body.theme_id);
      const id = await createDraft(deps, auth.project.id, {
        displayName: body.display_name,
        themeId: body.theme_id,
        ...(body.tsx_source !== undefined ? { tsxSource: body.tsx_source } : {}),
      });
      return { body: { id } };
    },
  }),
  admin.get("/internal/email-drafts/:id", {
    summary: "Read one email draft",
    request: { params: idParams },
    response: { body: draftSchema },
    handler: async ({ deps, auth, params }) => ({
      body: draftView(await draftOr404(deps, auth.project.id, params.id)),
    }),
  }),
  admin.patch("/internal/email-drafts/:id", {
    summary: "Change an email draft; leaving theme_id out sets it back to the project's default theme",
    request: {
      params: idParams,
      body: z.strictObject({
        display_name: displayNameField.optional(),
        theme_id: themeIdField.optional(),
        tsx_source: tsxSourceField.optional(),
      }),
    },
    response: { body: ok },
    handler: async ({ deps, auth, params, body }) => {
      await draftOr404(deps, auth.project.id, params.id);
      checkTheme(auth.config, body.theme_id);
      await updateDraft(deps, auth.project.id, params.id, {
        ...(body.display_name !== undefined ? { displayName: body.display_name } : {}),
        ...(body.tsx_source !== undefined ? { tsxSource: body.tsx_source } : {}),
        themeId: body.theme_id,
      });
      return { body: { ok: "ok" as const } };
    },
  }),
  admin.delete("/internal/email-drafts/:id", {
    summary: "Delete an email draft",
    request: { params: idParams },
    response: { body: ok },
    handler: async ({ deps, auth, params }) => {
      await deleteDraft(deps, auth.project.id, params.id);
      return { body: { ok: "ok" as const } };
    },
  }),
];
