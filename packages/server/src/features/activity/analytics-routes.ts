/**
 * `POST /analytics/events/batch` (PROTOCOL-EXTRA §4.2): the page views and clicks that the official SDKs send from
 * browsers, stored as `$page-view` / `$click` activity events through the batched writer (analytics.ts). Only for
 * projects with the analytics app turned on (`apps.installed.analytics.enabled`), and only from a signed-in
 * session: the events belong to its user.
 */
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import { jsonFromBytes } from "../../http/body.ts";
import { requireUser } from "../../http/current-user.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { ipInfo } from "./analytics.ts";

const anyKey = routeGroup({ tags: ["Analytics"], access: ["client", "server", "admin"] });

export const MAX_EVENTS_PER_BATCH = 500;

const eventSchema = z.strictObject({
  event_type: z.enum(["$page-view", "$click"]),
  event_at_ms: z.number().int().nonnegative(),
  data: z.record(z.string(), z.unknown()),
});

export const analyticsRoutes = [
  anyKey.post("/analytics/events/batch", {
    summary: "Store a batch of page views and clicks from a signed-in browser session",
    request: {
      // The official SDK sends its batches gzip-compressed as application/octet-stream (PROTOCOL-EXTRA §8.14).
      body: z.preprocess(
        (value) => (value instanceof Uint8Array ? jsonFromBytes(value) : value),
        z.strictObject({
          session_replay_segment_id: z.uuid(),
          batch_id: z.uuid(),
          sent_at_ms: z.number().int().nonnegative(),
          events: z.array(eventSchema).min(1).max(MAX_EVENTS_PER_BATCH),
        }),
      ),
    },
    response: { body: z.object({ inserted: z.number().int() }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      const user = requireUser(auth);
      const refreshTokenId = auth.accessToken?.refresh_token_id;
      if (!refreshTokenId) {
        throw new StatusError(
          400,
          "Analytics events need a user session (an access token from a refresh token).",
        );
      }
      if (auth.config.apps.installed.analytics?.enabled !== true) throw knownError("ANALYTICS_NOT_ENABLED");
      const geo = ipInfo(clientIp);
      const now = Date.now();
      for (const event of body.events) {
        deps.activity.record({
          projectId: auth.project.id,
          type: event.event_type,
          data: {
            ...event.data,
            is_anonymous: user.isAnonymous,
            refresh_token_id: refreshTokenId,
            session_replay_segment_id: body.session_replay_segment_id,
            batch_id: body.batch_id,
            ...geo,
          },
          userId: user.id,
          teamId: user.selectedTeamId,
          countryCode: geo.ip_info?.country_code ?? null,
          // The browser's clock, but never ahead of ours: a future day would count before it came.
          occurredAt: new Date(Math.min(event.event_at_ms, now)),
        });
      }
      return { body: { inserted: body.events.length } };
    },
  }),
];
