/**
 * The email-templates feature: themes, templates and the render preview (PROTOCOL-EXTRA §1.3, §1.4, §1.6), and
 * Gatehouse's reset of a built-in to the source this server ships.
 */
import { renderRoutes } from "./render-route.ts";
import { resetRoutes } from "./reset-routes.ts";
import { sendTestRoute } from "./send-test-route.ts";
import { templateRoutes } from "./template-routes.ts";
import { themeRoutes } from "./theme-routes.ts";

export const emailTemplateRoutes = [
  ...themeRoutes,
  ...templateRoutes,
  ...resetRoutes,
  sendTestRoute,
  ...renderRoutes,
];
