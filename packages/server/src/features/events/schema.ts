import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";

/**
 * The event log. Every state change the protocol names as an event (`user.created`, `team_membership.deleted`, ...:
 * PROTOCOL-EXTRA §3.1) is written here in the same transaction as the change, with the payload webhooks deliver:
 * a transactional outbox, so no change is ever without its event or an event without its change. Activity that
 * only feeds the metrics (`$token-refresh`, `$sign-in`, `$page-view`, `$click`: types starting with `$`) is
 * written here too, in batches and outside any transaction (analytics.ts), since losing a few of those on a crash
 * costs nothing.
 */
export const events = pgTable(
  "events",
  {
    projectId: projectIdColumn(),
    /** Also the webhook message id (`webhook-id`), stable across retries and endpoints. */
    id: uuid("id").primaryKey(),
    /** The order events were written in: one transaction's events share `occurred_at` (its start time). */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    type: text("type").notNull(),
    /** For webhook events `{type, data}`'s `data`: the protocol's payload, as it was at the change. */
    data: jsonb("data").notNull(),
    userId: uuid("user_id"),
    teamId: uuid("team_id"),
    /** Where the request came from (ISO 3166 alpha-2, from a local GeoIP lookup), for activity events. */
    countryCode: text("country_code"),
    occurredAt: timestamp("occurred_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /**
     * When the webhook worker made this event's deliveries; null until then. Activity events (`$…`) are never
     * delivered and are written with it set.
     */
    dispatchedAt: timestamp("dispatched_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    // Metrics read bounded windows of one type (daily active users: `$token-refresh` of the last 31 days).
    index("events_project_type_time_idx").on(t.projectId, t.type, t.occurredAt),
    // One user's latest events, newest first (recent.ts: what the AI helper reads to explain a sign-in).
    index("events_project_user_seq_idx").on(t.projectId, t.userId, t.seq),
    // The webhook worker's claim: events not yet fanned out to endpoints.
    index("events_undispatched_idx").on(t.seq).where(sql`${t.dispatchedAt} is null`),
  ],
);

export type EventRow = typeof events.$inferSelect;

/**
 * The daily rollup of `$token-refresh` events that the activity metrics read instead of the events: one row per
 * project, UTC day and active subject (a user, or the team a user worked in), whatever the number of refreshes.
 * Written by the statement that writes the events (activity-rows.ts), so the two never disagree but for what
 * `repairActivityDays` (activity-days.ts) corrects. Each row carries what the figures need without reading other
 * rows: the subject's previous active day (for retained, reactivated and new) and its last country of the day,
 * each twice, once over all of the day's refreshes and once over those of a user who was not anonymous (`known_*`,
 * the metrics' default view).
 */
export const activityDays = pgTable(
  "activity_days",
  {
    projectId: projectIdColumn(),
    /** 0 a user, 1 a team: numbers, so that the key sorts and compares cheaply. */
    kind: smallint("kind").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    subject: uuid("subject").notNull(),
    /** Some refresh of the day came from a user who was not anonymous then. */
    known: boolean("known").notNull().default(false),
    /** The subject's latest earlier day with a row (32 days back at most), and the same among `known` rows. */
    previousDay: date("previous_day", { mode: "string" }),
    knownPreviousDay: date("known_previous_day", { mode: "string" }),
    /** A user's country at their latest refresh of the day that had one, and among `known` refreshes. */
    country: text("country"),
    countryAt: timestamp("country_at", { withTimezone: true, mode: "date" }),
    knownCountry: text("known_country"),
    knownCountryAt: timestamp("known_country_at", { withTimezone: true, mode: "date" }),
    /** The subject's creation day (a user's `signed_up_at`, a team's `created_at`), for `new`; null if gone. */
    createdDay: date("created_day", { mode: "string" }),
  },
  (t) => [
    // The metrics read a window of days; the key serves that range.
    primaryKey({ columns: [t.projectId, t.kind, t.day, t.subject] }),
    // The writer's look-up of a subject's previous day.
    index("activity_days_subject_idx").on(t.projectId, t.kind, t.subject, t.day),
  ],
);

/**
 * What the daily split needs from `activity_days`, counted: per project, kind, day and gap (days since the row's
 * previous day, 0 for none), how many rows there are, once over all rows (`known_only` false, with `previous_day`)
 * and once over the known rows (with `known_previous_day`). A day's active subjects are the sum of its gaps, the
 * retained ones gap 1, those first seen in a window gap 0 or reaching before it; so the metrics read a few rows per
 * day, whatever the number of active users. The writer's statement adds what its upserts changed; the repair
 * (activity-days.ts) recounts from the rows.
 */
export const activityDayCounts = pgTable(
  "activity_day_counts",
  {
    projectId: projectIdColumn(),
    kind: smallint("kind").notNull(),
    knownOnly: boolean("known_only").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    gap: smallint("gap").notNull(),
    subjects: integer("subjects").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.kind, t.knownOnly, t.day, t.gap] })],
);

/**
 * Users by country, counted: per project, day and country, how many users have that day as their latest day with a
 * country in `activity_days` and that country then (`known_only`: among known rows, with `known_country`). A window's
 * map is the sum over its days; a user seen again moves from their old cell to the new one. Kept by the writer's
 * statement, recounted by the repair, like `activity_day_counts`.
 */
export const activityCountryCounts = pgTable(
  "activity_country_counts",
  {
    projectId: projectIdColumn(),
    knownOnly: boolean("known_only").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    country: text("country").notNull(),
    users: integer("users").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.knownOnly, t.day, t.country] })],
);

/**
 * What `new` needs, counted like `activity_day_counts` but only over rows of subjects created at most 32 days before
 * the row's day, by creation day too: a window's new subjects on a day are its rows with no previous day in the
 * window (or the day before it) whose subject was created within that span, a sum of a few rows.
 */
export const activityNewCounts = pgTable(
  "activity_new_counts",
  {
    projectId: projectIdColumn(),
    kind: smallint("kind").notNull(),
    knownOnly: boolean("known_only").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    gap: smallint("gap").notNull(),
    createdDay: date("created_day", { mode: "string" }).notNull(),
    subjects: integer("subjects").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.kind, t.knownOnly, t.day, t.gap, t.createdDay] })],
);
