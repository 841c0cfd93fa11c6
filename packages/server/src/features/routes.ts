import { openApiRoutes } from "../http/openapi.ts";
import type { AnyRoute } from "../http/route.ts";
import { configRoutes } from "./config/routes.ts";
import { projectKeyRoutes } from "./project-keys/routes.ts";
import { projectRoutes } from "./projects/routes.ts";
import { sessionRoutes } from "./sessions/routes.ts";
import { tokenRoutes } from "./sessions/token-route.ts";
import { systemRoutes } from "./system/routes.ts";

/** Every API route of the server. A feature adds its list here; the route-guard test then covers it. */
export const featureRoutes: readonly AnyRoute[] = [
  ...systemRoutes,
  ...projectRoutes,
  ...projectKeyRoutes,
  ...configRoutes,
  ...sessionRoutes,
  ...tokenRoutes,
];

/** What the app serves: the feature routes plus the OpenAPI document and docs page generated from them. */
export const apiRoutes: readonly AnyRoute[] = [...featureRoutes, ...openApiRoutes(featureRoutes)];
