import type { WireNotificationPreference } from "@gatehouse/shared";
import { z } from "zod";
import { userIdOrMeField } from "../../fields/ids.ts";
import { resolveUserId } from "../../http/current-user.ts";
import { type AnyRoute, routeGroup } from "../../http/route.ts";
import { wire } from "../../http/wire-schema.ts";
import { listNotificationPreferences, setNotificationPreference } from "./service.ts";

const preferenceSchema = wire<WireNotificationPreference>()(
  z.object({
    notification_category_id: z.string(),
    notification_category_name: z.string(),
    enabled: z.boolean(),
    can_disable: z.boolean(),
  }),
);

const tags = ["Notification preferences"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });

export const notificationRoutes: AnyRoute[] = [
  anyKey.get("/emails/notification-preference/:user_id", {
    summary: "List a user's notification categories and whether each is enabled",
    request: { params: z.strictObject({ user_id: userIdOrMeField }) },
    response: { body: z.object({ items: z.array(preferenceSchema), is_paginated: z.literal(false) }) },
    handler: async ({ deps, auth, params }) => {
      const userId = resolveUserId(auth, params.user_id);
      const items = await listNotificationPreferences(deps.db, auth.project.id, userId);
      return { body: { items, is_paginated: false } };
    },
  }),
  anyKey.patch("/emails/notification-preference/:user_id/:notification_category_id", {
    summary: "Enable or disable a notification category for a user (Transactional cannot be disabled)",
    request: {
      // Any string: an unknown category is a 404, whatever it looks like.
      params: z.strictObject({ user_id: userIdOrMeField, notification_category_id: z.string().max(100) }),
      body: z.strictObject({ enabled: z.boolean() }),
    },
    response: { body: preferenceSchema },
    handler: async ({ deps, auth, params, body }) => {
      const userId = resolveUserId(auth, params.user_id);
      return {
        body: await setNotificationPreference(
          deps.db,
          auth.project.id,
          userId,
          params.notification_category_id,
          body.enabled,
        ),
      };
    },
  }),
];
