import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import { storableText } from "../../fields/text.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { withStoredProjectLogos } from "../images/stored-image.ts";
import { hasTeamPermission } from "../permissions/service.ts";
import { getRenderedConfigs } from "../projects/config-store.ts";
import { userManagesProject } from "../projects/ownership.ts";
import {
  createOwnedProject,
  findProject,
  listManagedProjects,
  transferProject,
} from "../projects/service.ts";
import { adminProjectSchema, toAdminProjectView } from "../projects/views.ts";
import type { UserRow } from "../users/schema.ts";
import { projectFieldsSchema } from "./routes.ts";

const tags = ["Projects"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });

/**
 * These routes act for a dashboard user: a signed-in, non-anonymous user of the `internal` project (PROTOCOL.md §6).
 * Anonymous users are turned away because admin access tokens refuse them, so a project they owned would be
 * unreachable.
 */
function requireInternalUser(auth: RequestAuth): UserRow {
  if (auth.project.id !== "internal") throw knownError("EXPECTED_INTERNAL_PROJECT");
  if (!auth.user || auth.user.isAnonymous) throw knownError("USER_AUTHENTICATION_REQUIRED");
  return auth.user;
}

export const internalProjectRoutes = [
  anyKey.post("/internal/projects", {
    summary: "Create a project owned by one of the signed-in dashboard user's teams",
    request: {
      body: projectFieldsSchema.extend({
        display_name: storableText(256).trim().min(1),
        owner_team_id: z.uuid(),
      }),
    },
    response: { status: 201, body: adminProjectSchema },
    handler: async ({ deps, auth, body }) => {
      const user = requireInternalUser(auth);
      // No keys are made here: the SDK creates them next with `createInternalApiKey`, authenticated by the admin
      // access token, so the full keys are shown once, to the caller who asked for them.
      // The owner team is checked (TEAM_NOT_FOUND, TEAM_MEMBERSHIP_NOT_FOUND) and locked against deletion inside.
      const project = await createOwnedProject(deps, await withStoredProjectLogos(deps.env, body), user.id);
      const configs = await getRenderedConfigs(deps, [project.id]);
      return { body: toAdminProjectView(project, configs.get(project.id)!, deps.env.isDevelopment) };
    },
  }),
  anyKey.get("/internal/projects", {
    summary: "List the projects the signed-in dashboard user manages",
    response: { body: z.object({ items: z.array(adminProjectSchema), is_paginated: z.literal(false) }) },
    handler: async ({ deps, auth }) => {
      const user = requireInternalUser(auth);
      const projects = await listManagedProjects(deps.db, user.id);
      const configs = await getRenderedConfigs(
        deps,
        projects.map((p) => p.id),
      );
      const items = projects.map((p) => toAdminProjectView(p, configs.get(p.id)!, deps.env.isDevelopment));
      return { body: { items, is_paginated: false as const } };
    },
  }),
  anyKey.post("/internal/projects/transfer", {
    summary: "Hand a managed project over to another of the dashboard user's teams",
    request: { body: z.strictObject({ project_id: z.string().min(1).max(100), new_team_id: z.uuid() }) },
    // The reference answers the string "true" here (PROTOCOL-EXTRA §8.12), unlike the boolean of other routes.
    response: { body: z.object({ success: z.literal("true") }) },
    handler: async ({ deps, auth, body }) => {
      const user = requireInternalUser(auth);
      const project = await findProject(deps.db, body.project_id);
      // A project the user does not manage is reported like a missing one, so ids cannot be probed.
      if (!project || !(await userManagesProject(deps.db, user.id, project))) {
        throw knownError("PROJECT_NOT_FOUND", { project_id: body.project_id });
      }
      if (project.id === "internal") {
        // Its owner team is what makes dashboard users administrators of the dashboard itself.
        throw new StatusError(400, "The internal project cannot be transferred.");
      }
      // Giving a project away is the current owner team's admins' call, as in the reference.
      const ownerTeamId = project.ownerTeamId!;
      const isAdmin = await hasTeamPermission(deps.db, {
        projectId: "internal",
        teamId: ownerTeamId,
        userId: user.id,
        permissionId: "team_admin",
        config: auth.config,
      });
      if (!isAdmin) {
        throw knownError("TEAM_PERMISSION_REQUIRED", {
          team_id: ownerTeamId,
          user_id: user.id,
          permission_id: "team_admin",
        });
      }
      await transferProject(deps.db, project.id, body.new_team_id, user.id);
      return { body: { success: "true" as const } };
    },
  }),
];
