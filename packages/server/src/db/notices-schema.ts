import { sql } from "drizzle-orm";
import { bigserial, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Notices between instances (notices.ts says how they are sent and read). */
export const changeNotices = pgTable(
  "change_notices",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    channel: text("channel").notNull(),
    payload: text("payload").notNull(),
    // clock_timestamp(), not now(): now() is the transaction's start, and a poller compares with its own clock reads.
    sentAt: timestamp("sent_at", { withTimezone: true, mode: "date" })
      .notNull()
      .default(sql`clock_timestamp()`),
  },
  (t) => [index("change_notices_sent_at_idx").on(t.sentAt)],
);
