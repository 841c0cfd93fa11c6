import { date, integer, pgTable, primaryKey, smallint } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";

/**
 * The project's totals, as a rollup by the day the counted rows were created (a user's `signed_up_at`, a team's
 * `created_at`, UTC): each row adds up what those rows are now, so a total is the sum over all days and the daily
 * sign-ups are one day's `users`. Database triggers keep it in the transaction of every change (migration
 * 0017_project_count_days), and `repairCounts` (counts.ts) corrects what drifted. A day is split into `slot`s
 * (the transaction id mod 8, one row per transaction so that two never lock rows in opposite orders), so
 * concurrent sign-ups of one day do not queue on one row's lock.
 */
export const projectCountDays = pgTable(
  "project_count_days",
  {
    projectId: projectIdColumn(),
    day: date("day", { mode: "string" }).notNull(),
    slot: smallint("slot").notNull(),
    users: integer("users").notNull().default(0),
    anonymousUsers: integer("anonymous_users").notNull().default(0),
    passwordUsers: integer("password_users").notNull().default(0),
    otpUsers: integer("otp_users").notNull().default(0),
    /** Users that are not anonymous and have a verified email (users.has_verified_email). */
    verifiedUsers: integer("verified_users").notNull().default(0),
    teams: integer("teams").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.day, t.slot] })],
);
