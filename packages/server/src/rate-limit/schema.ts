import { index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../features/projects/schema.ts";
import { userIdColumn } from "../features/users/schema.ts";

/**
 * One counter per bucket key. The key already names the project, so limits of one tenant never touch another's;
 * kept in the database so that every instance sees the same counts. A counter's window starts at its first
 * attempt and is restarted by the first attempt after it ends, so there is no clock edge where two windows meet
 * and a burst could get twice the limit.
 */
export const rateLimitCounters = pgTable(
  "rate_limit_counters",
  {
    key: text("key").primaryKey(),
    windowStart: timestamp("window_start", { withTimezone: true, mode: "date" }).notNull(),
    count: integer("count").notNull(),
    /**
     * Only the per-account password ceiling uses these two: once it is full, attempts from unknown addresses pass
     * one at a time, each making the next wait longer (password-checks.ts). Reset with the window.
     */
    slowPasses: integer("slow_passes").notNull().default(0),
    slowNextAt: timestamp("slow_next_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("rate_limit_counters_window_start_idx").on(t.windowStart)],
);

/**
 * Addresses a user completed a password sign-in from. Failures from elsewhere never hold these back (the owner of
 * an account under attack still signs in from home). Deleted with the user, since an address is personal data.
 */
export const knownSignInAddresses = pgTable(
  "known_sign_in_addresses",
  {
    projectId: projectIdColumn(),
    userId: userIdColumn(),
    address: text("address").notNull(),
    lastSignInAt: timestamp("last_sign_in_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.userId, t.address] }),
    index("known_sign_in_addresses_last_idx").on(t.lastSignInAt),
  ],
);
