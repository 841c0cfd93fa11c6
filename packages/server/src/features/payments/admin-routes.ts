/** The owners' payments routes (PROTOCOL-EXTRA §2.5) that do not need a payment provider. */
import { z } from "zod";
import { CUSTOMER_TYPES } from "../../config/payments.ts";
import { routeGroup } from "../../http/route.ts";
import { customerIdField } from "./customers.ts";
import { decodeCursor, listTransactions, TRANSACTION_TYPES } from "./transactions.ts";

const admin = routeGroup({ tags: ["Payments"], access: ["admin"] });

export const paymentAdminRoutes = [
  admin.get("/internal/payments/transactions", {
    summary: "The project's purchases and item changes, newest first",
    request: {
      query: z.strictObject({
        cursor: z.string().max(500).optional(),
        // Clamped, not refused, as the protocol says.
        limit: z.coerce
          .number()
          .int()
          .default(50)
          .transform((limit) => Math.min(200, Math.max(1, limit))),
        type: z.enum(TRANSACTION_TYPES).optional(),
        customer_type: z.enum(CUSTOMER_TYPES).optional(),
        customer_id: customerIdField.optional(),
      }),
    },
    response: {
      body: z.object({
        transactions: z.array(
          z.object({
            id: z.string(),
            created_at_millis: z.number(),
            effective_at_millis: z.number(),
            type: z.enum(TRANSACTION_TYPES).nullable(),
            entries: z.array(z.record(z.string(), z.unknown())),
            adjusted_by: z.array(z.object({ transaction_id: z.string(), entry_index: z.number() })),
            test_mode: z.boolean(),
          }),
        ),
        next_cursor: z.string().nullable(),
      }),
    },
    handler: async ({ deps, auth, query }) => ({
      body: await listTransactions(deps.db, {
        projectId: auth.project.id,
        limit: query.limit,
        ...(query.cursor !== undefined ? { cursor: decodeCursor(query.cursor) } : {}),
        ...(query.type !== undefined ? { type: query.type } : {}),
        ...(query.customer_type !== undefined ? { customerType: query.customer_type } : {}),
        ...(query.customer_id !== undefined ? { customerId: query.customer_id } : {}),
      }),
    }),
  }),
];
