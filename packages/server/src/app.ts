import { Hono } from "hono";
import type { AppDeps } from "./deps.ts";
import { mountSdkTarballs } from "./features/dashboard/sdk-tarballs.ts";
import { mountDashboard } from "./features/dashboard/static.ts";
import { mountStoredFiles } from "./features/images/files-route.ts";
import { apiRoutes } from "./features/routes.ts";
import { apiResponseHeaders, requestBodyLimit } from "./http/api-middleware.ts";
import { clientGeoMiddleware } from "./http/client-geo.ts";
import { clientIpMiddleware } from "./http/client-ip.ts";
import { closeConnectionsWhileDraining, mountProbes } from "./http/readiness.ts";
import { serverErrorHandler, textResponse } from "./http/responses.ts";
import { mountRoutes } from "./http/router.ts";
import { serverErrorLog } from "./http/server-error-log.ts";
import { mountMetrics } from "./observability/metrics-route.ts";
import { observeRequests } from "./observability/request-observer.ts";

export type { AppDeps } from "./deps.ts";

/**
 * Builds the whole HTTP app. Tests drive it with `app.request()`; `main.ts` serves it with @hono/node-server.
 */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();

  const { logger } = deps.observability;
  app.onError(serverErrorHandler(deps.env, logger));

  // Outermost: the span, the metrics and the access line cover everything below, error answers included.
  app.use("*", observeRequests(deps.observability));
  app.use("*", closeConnectionsWhileDraining(deps));
  // Before the error log: /ready's 503 is this instance's state, for the load balancer, not a server error.
  mountProbes(app, deps);
  app.use("*", serverErrorLog(logger));
  app.use("*", clientIpMiddleware(deps.env));
  app.use("*", clientGeoMiddleware(deps.env));

  mountMetrics(app, deps.observability);

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
  mountSdkTarballs(app);
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
