/**
 * `GET /emails/delivery-info` and `POST /emails/capacity-boost` (PROTOCOL-EXTRA §1.10): what the project sent, and
 * the capacity the outbox worker holds it to (capacity.ts).
 */
import type { WireCapacityBoost, WireEmailDeliveryInfo } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import { routeGroup } from "../../http/route.ts";
import { wire } from "../../http/wire-schema.ts";
import { activateBoost, deliveryInfo } from "./capacity.ts";

const tags = ["Emails"];
const serverOrAdmin = routeGroup({ tags, access: ["server", "admin"] });
const windowStats = z.object({ sent: z.number(), bounced: z.number(), marked_as_spam: z.number() });

export const capacityRoutes = [
  serverOrAdmin.get("/emails/delivery-info", {
    summary: "Emails sent in the last hour, day, week and month, and the project's sending capacity",
    response: {
      body: wire<WireEmailDeliveryInfo>()(
        z.object({
          stats: z.object({ hour: windowStats, day: windowStats, week: windowStats, month: windowStats }),
          capacity: z.object({
            rate_per_second: z.number(),
            boost_multiplier: z.number(),
            penalty_factor: z.number(),
            is_boost_active: z.boolean(),
            boost_expires_at: z.string().nullable(),
          }),
        }),
      ),
    },
    handler: async ({ deps, auth }) => ({ body: await deliveryInfo(deps, auth.project.id) }),
  }),
  serverOrAdmin.post("/emails/capacity-boost", {
    summary: "Send four times as fast for the next four hours (once at a time)",
    response: { body: wire<WireCapacityBoost>()(z.object({ expires_at: z.string() })) },
    handler: async ({ deps, auth }) => {
      const boost = await activateBoost(deps, auth.project.id);
      const expiresAt = boost.expiresAt.toISOString();
      if (!boost.started) throw knownError("EMAIL_CAPACITY_BOOST_ALREADY_ACTIVE", { expires_at: expiresAt });
      return { body: { expires_at: expiresAt } };
    },
  }),
];
