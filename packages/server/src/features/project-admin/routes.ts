import { z } from "zod";
import { legacyConfigUpdateSchema } from "../../config/index.ts";
import { logoUrlField } from "../../fields/images.ts";
import { storableText } from "../../fields/text.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { withStoredProjectLogos } from "../images/stored-image.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { deleteProject, updateProject } from "../projects/service.ts";
import {
  adminProjectSchema,
  clientProjectSchema,
  ONBOARDING_STATUSES,
  toAdminProjectView,
  toClientProjectView,
} from "../projects/views.ts";

const tags = ["Projects"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });
const admin = routeGroup({ tags, access: ["admin"] });
/** An http(s) URL, or a data URL that is uploaded and replaced by its URL (PROTOCOL-EXTRA §6.7). */
const optionalUrl = logoUrlField.nullable().optional();

/** Fields an owner may change on a project; shared with project creation. */
export const projectFieldsSchema = z.strictObject({
  display_name: storableText(256).trim().min(1).optional(),
  description: storableText(4096).nullable().optional(),
  logo_url: optionalUrl,
  logo_full_url: optionalUrl,
  logo_dark_mode_url: optionalUrl,
  logo_full_dark_mode_url: optionalUrl,
  is_production_mode: z.boolean().optional(),
  onboarding_status: z.enum(ONBOARDING_STATUSES).optional(),
  config: legacyConfigUpdateSchema.optional(),
});

export const projectRoutes = [
  anyKey.get("/projects/current", {
    summary: "The current project as clients see it",
    response: { body: clientProjectSchema },
    handler: async ({ auth }) => ({ body: toClientProjectView(auth.project, auth.config) }),
  }),
  admin.get("/internal/projects/current", {
    summary: "The current project with its settings, for its owners",
    response: { body: adminProjectSchema },
    handler: async ({ deps, auth }) => ({
      body: toAdminProjectView(auth.project, auth.config, deps.env.isDevelopment),
    }),
  }),
  admin.patch("/internal/projects/current", {
    summary: "Update the current project's fields and legacy config",
    request: { body: projectFieldsSchema },
    response: { body: adminProjectSchema },
    handler: async ({ deps, auth, body }) => {
      const project = await updateProject(
        deps,
        auth.project.id,
        await withStoredProjectLogos(deps.env, body),
      );
      const config = await getRenderedConfig(deps, project.id);
      return { body: toAdminProjectView(project, config, deps.env.isDevelopment) };
    },
  }),
  admin.delete("/internal/projects/current", {
    summary: "Delete the current project and everything in it",
    response: { body: z.object({ success: z.literal(true) }) },
    handler: async ({ deps, auth }) => {
      if (auth.project.id === "internal")
        throw new StatusError(400, "The internal project cannot be deleted.");
      await deleteProject(deps.db, auth.project.id);
      return { body: { success: true } };
    },
  }),
];
