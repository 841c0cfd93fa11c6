import { openApiRoutes } from "../http/openapi.ts";
import type { AnyRoute } from "../http/route.ts";
import { anonymousRoutes } from "./auth-anonymous/routes.ts";
import { mfaRoutes } from "./auth-mfa/routes.ts";
import { otpRoutes } from "./auth-otp/routes.ts";
import { passkeyRoutes } from "./auth-passkey/routes.ts";
import { passwordRoutes } from "./auth-password/routes.ts";
import { cliAuthRoutes } from "./cli-auth/routes.ts";
import { configRoutes } from "./config/routes.ts";
import { contactChannelRoutes } from "./contact-channels/routes.ts";
import { emailRoutes } from "./emails/routes.ts";
import { notificationRoutes } from "./notifications/routes.ts";
import { oauthRoutes } from "./oauth/routes.ts";
import { permissionRoutes } from "./permissions/routes.ts";
import { projectKeyRoutes } from "./project-keys/routes.ts";
import { internalProjectRoutes } from "./projects/internal-projects-routes.ts";
import { projectRoutes } from "./projects/routes.ts";
import { sessionRoutes } from "./sessions/routes.ts";
import { tokenRoutes } from "./sessions/token-route.ts";
import { systemRoutes } from "./system/routes.ts";
import { teamRoutes } from "./teams/routes.ts";
import { userApiKeyRoutes } from "./user-api-keys/routes.ts";
import { userRoutes } from "./users/routes.ts";

/** Every API route of the server. A feature adds its list here; the route-guard test then covers it. */
export const featureRoutes: readonly AnyRoute[] = [
  ...systemRoutes,
  ...projectRoutes,
  ...internalProjectRoutes,
  ...projectKeyRoutes,
  ...configRoutes,
  ...sessionRoutes,
  ...tokenRoutes,
  ...userRoutes,
  ...passwordRoutes,
  ...anonymousRoutes,
  ...otpRoutes,
  ...mfaRoutes,
  ...passkeyRoutes,
  ...contactChannelRoutes,
  ...emailRoutes,
  ...cliAuthRoutes,
  ...teamRoutes,
  ...permissionRoutes,
  ...userApiKeyRoutes,
  ...notificationRoutes,
  ...oauthRoutes,
];

/** What the app serves: the feature routes plus the OpenAPI document and docs page generated from them. */
export const apiRoutes: readonly AnyRoute[] = [...featureRoutes, ...openApiRoutes(featureRoutes)];
