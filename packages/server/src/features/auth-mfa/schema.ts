import { bigint, pgTable, primaryKey, timestamp } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";
import { userIdColumn } from "../users/schema.ts";

/**
 * The newest TOTP time step each user has signed in with. A code is accepted only for a later step, so a code seen
 * over someone's shoulder (or replayed from a log) cannot be used again within its ±30 s window (RFC 6238 §5.2).
 */
export const mfaTotpUsage = pgTable(
  "mfa_totp_usage",
  {
    projectId: projectIdColumn(),
    userId: userIdColumn(),
    /** Unix time / 30 s of the last accepted code. */
    lastStep: bigint("last_step", { mode: "number" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.userId] })],
);
