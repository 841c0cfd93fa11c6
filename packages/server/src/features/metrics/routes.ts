/**
 * `GET /internal/metrics` (PROTOCOL-EXTRA §4.1): the owners' overview of a project. Each section is its own set of
 * bounded queries (users.ts, activity.ts, emails.ts, analytics.ts), run side by side.
 */
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { defineRoute } from "../../http/route.ts";
import { paymentCounts } from "../payments/metrics.ts";
import { activityMetrics } from "./activity.ts";
import { analyticsCounts, analyticsOverview, paymentsOverview } from "./analytics.ts";
import { emailMetrics } from "./emails.ts";
import { userMetrics } from "./users.ts";
import { type MetricsResponse, metricsResponseSchema } from "./views.ts";
import { metricsWindow } from "./window.ts";

export async function loadMetrics(
  db: Database,
  projectId: string,
  config: RenderedConfig,
  includeAnonymous: boolean,
  now = new Date(),
): Promise<MetricsResponse> {
  const window = metricsWindow(now);
  // All sections at once, each on its own pooled connection: the call takes about its slowest section.
  const [userFigures, activity, emails, payments, analyticsFigures] = await Promise.all([
    userMetrics(db, projectId, config, window, includeAnonymous),
    activityMetrics(db, projectId, window, includeAnonymous),
    emailMetrics(db, projectId, window),
    paymentCounts(db, projectId, window),
    analyticsCounts(db, projectId, window, includeAnonymous),
  ]);
  const analytics = analyticsOverview(window, analyticsFigures, activity.onlineLive, payments);
  return {
    total_users: userFigures.totalUsersFiltered,
    daily_users: userFigures.dailyUsers,
    daily_active_users: activity.dailyActiveUsers,
    users_by_country: activity.usersByCountry,
    recently_registered: userFigures.recentlyRegistered,
    recently_active: userFigures.recentlyActive,
    login_methods: userFigures.loginMethods,
    auth_overview: {
      verified_users: userFigures.verifiedUsers,
      unverified_users: userFigures.unverifiedUsers,
      anonymous_users: userFigures.anonymousUsers,
      total_teams: userFigures.totalTeams,
      mau: activity.mau,
      daily_active_users_split: activity.dailyActiveUsersSplit,
      daily_active_teams_split: activity.dailyActiveTeamsSplit,
      total_users_filtered: userFigures.totalUsersFiltered,
    },
    payments_overview: paymentsOverview(window, payments),
    email_overview: emails,
    analytics_overview: analytics,
  };
}

export const metricsRoutes = [
  defineRoute({
    method: "GET",
    path: "/internal/metrics",
    summary: "The project's metrics: users, activity, sign-in methods, emails and page views",
    tags: ["Metrics"],
    access: ["admin"],
    request: {
      query: z.strictObject({ include_anonymous: z.enum(["true", "false"]).optional() }),
    },
    response: { body: metricsResponseSchema },
    handler: async ({ deps, auth, query }) => ({
      body: await loadMetrics(deps.db, auth.project.id, auth.config, query.include_anonymous === "true"),
    }),
  }),
];
