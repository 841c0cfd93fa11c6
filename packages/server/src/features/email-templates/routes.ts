/** The email-templates feature: themes, templates and the render preview (PROTOCOL-EXTRA §1.3, §1.4, §1.6). */
import { renderRoutes } from "./render-route.ts";
import { templateRoutes } from "./template-routes.ts";
import { themeRoutes } from "./theme-routes.ts";

export const emailTemplateRoutes = [...themeRoutes, ...templateRoutes, ...renderRoutes];
