import { Hono } from "hono";
import type { AppDeps } from "./deps.ts";
import { mountDashboard } from "./features/dashboard/static.ts";
import { mountStoredFiles } from "./features/images/files-route.ts";
import { apiRoutes } from "./features/routes.ts";
import { apiResponseHeaders, requestBodyLimit } from "./http/api-middleware.ts";
import { clientIpMiddleware } from "./http/client-ip.ts";
import { jsonResponse, serverErrorHandler, textResponse } from "./http/responses.ts";
import { mountRoutes } from "./http/router.ts";
import { serverErrorLog } from "./http/server-error-log.ts";

export type { AppDeps } from "./deps.ts";

/**
 * Builds the whole HTTP app. Tests drive it with `app.request()`; `main.ts` serves it with @hono/node-server.
 */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();

  app.onError(serverErrorHandler(deps.env));

  app.use("*", serverErrorLog());
  app.use("*", clientIpMiddleware(deps.env));

  app.get("/health", () =>
    jsonResponse({ status: "ok" }, 200, { "access-control-allow-origin": "*", "cache-control": "no-store" }),
  );

  app.use("/api/*", apiResponseHeaders());
  // The largest legitimate body is a profile image as a data URL (1 MB); anything far beyond is refused unread.
  app.use(
    "/api/*",
    requestBodyLimit({
      maxSize: 2 * 1024 * 1024,
      onError: () => textResponse("The request body is too large (the limit is 2 MiB).", 413),
    }),
  );
  mountRoutes(app, apiRoutes, deps);
  mountStoredFiles(app, deps.env);
  mountDashboard(app);

  app.notFound((c) => {
    if (c.req.path.startsWith("/api/")) {
      return textResponse(
        `404 — this page does not exist in Gatehouse's API.\n\nPlease see the API documentation at ${deps.env.baseUrl}/api/v1/docs.`,
        404,
      );
    }
    return textResponse("Not found", 404);
  });

  return app;
}
