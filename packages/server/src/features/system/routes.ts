import { z } from "zod";
import { resolveRequestAuth } from "../../http/request-auth.ts";
import { textResponse } from "../../http/responses.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { findProject } from "../projects/service.ts";
import { feedbackRoutes } from "./feedback.ts";
import { internalSystemRoutes } from "./internal-routes.ts";
import { versionRoutes } from "./version-routes.ts";

const tags = ["System"];
const open = routeGroup({ tags, access: "public" });

export const systemRoutes = [
  ...versionRoutes,
  ...internalSystemRoutes,
  ...feedbackRoutes,
  open.get("", {
    summary: "A welcome text that also says how the request was authenticated",
    response: {
      raw: true,
      description:
        "Plain text ending in `Authentication: <type>` and, when authenticated, the project and user",
    },
    handler: async ({ deps, request }) => {
      const auth = await resolveRequestAuth(deps, request.headers);
      const lines = [
        "Welcome to the Gatehouse API endpoint! Please refer to the documentation at /api/v1/docs.",
        "",
      ];
      if (!auth) {
        lines.push("Authentication: None");
      } else {
        lines.push(`Authentication: ${auth.accessType[0]!.toUpperCase()}${auth.accessType.slice(1)}`);
        lines.push(`  Project: ${auth.project.id}`);
        lines.push(`  User: ${auth.user ? (auth.user.displayName ?? auth.user.id) : "None"}`);
      }
      return textResponse(lines.join("\n"));
    },
  }),
  open.get("/projects/:project_id/.well-known/jwks.json", {
    summary: "The public keys that verify this project's access tokens",
    request: {
      params: z.strictObject({ project_id: z.string().max(64) }),
      query: z.strictObject({
        include_restricted: z.enum(["true", "false"]).optional(),
        include_anonymous: z.enum(["true", "false"]).optional(),
      }),
    },
    response: { raw: true, description: "A JSON Web Key Set" },
    handler: async ({ deps, params, query }) => {
      const project = await findProject(deps.db, params.project_id);
      if (!project) throw new StatusError(404, `Project ${params.project_id} not found.`);
      const includeAnonymous = query.include_anonymous === "true";
      const jwks = await deps.keyring.jwks(project.id, {
        includeRestricted: includeAnonymous || query.include_restricted === "true",
        includeAnonymous,
      });
      return new Response(JSON.stringify(jwks), {
        headers: {
          "content-type": "application/json; charset=utf-8",
          "cache-control": "public, max-age=3600",
        },
      });
    },
  }),
];
