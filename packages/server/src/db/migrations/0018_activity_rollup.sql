CREATE TABLE "activity_country_counts" (
	"project_id" text NOT NULL,
	"known_only" boolean NOT NULL,
	"day" date NOT NULL,
	"country" text NOT NULL,
	"users" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "activity_country_counts_project_id_known_only_day_country_pk" PRIMARY KEY("project_id","known_only","day","country")
);
--> statement-breakpoint
CREATE TABLE "activity_day_counts" (
	"project_id" text NOT NULL,
	"kind" smallint NOT NULL,
	"known_only" boolean NOT NULL,
	"day" date NOT NULL,
	"gap" smallint NOT NULL,
	"subjects" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "activity_day_counts_project_id_kind_known_only_day_gap_pk" PRIMARY KEY("project_id","kind","known_only","day","gap")
);
--> statement-breakpoint
CREATE TABLE "activity_days" (
	"project_id" text NOT NULL,
	"kind" smallint NOT NULL,
	"day" date NOT NULL,
	"subject" uuid NOT NULL,
	"known" boolean DEFAULT false NOT NULL,
	"previous_day" date,
	"known_previous_day" date,
	"country" text,
	"country_at" timestamp with time zone,
	"known_country" text,
	"known_country_at" timestamp with time zone,
	"created_day" date,
	CONSTRAINT "activity_days_project_id_kind_day_subject_pk" PRIMARY KEY("project_id","kind","day","subject")
);
--> statement-breakpoint
CREATE TABLE "activity_new_counts" (
	"project_id" text NOT NULL,
	"kind" smallint NOT NULL,
	"known_only" boolean NOT NULL,
	"day" date NOT NULL,
	"gap" smallint NOT NULL,
	"created_day" date NOT NULL,
	"subjects" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "activity_new_counts_project_id_kind_known_only_day_gap_created_day_pk" PRIMARY KEY("project_id","kind","known_only","day","gap","created_day")
);
--> statement-breakpoint
ALTER TABLE "activity_country_counts" ADD CONSTRAINT "activity_country_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_day_counts" ADD CONSTRAINT "activity_day_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_days" ADD CONSTRAINT "activity_days_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_new_counts" ADD CONSTRAINT "activity_new_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_days_subject_idx" ON "activity_days" USING btree ("project_id","kind","subject","day");--> statement-breakpoint
CREATE INDEX "users_project_anonymous_idx" ON "users" USING btree ("project_id","signed_up_at","id") WHERE "users"."is_anonymous";--> statement-breakpoint
CREATE INDEX "users_project_restricted_idx" ON "users" USING btree ("project_id","signed_up_at","id") WHERE "users"."restricted_by_admin";--> statement-breakpoint
CREATE INDEX "users_project_mfa_idx" ON "users" USING btree ("project_id","signed_up_at","id") WHERE "users"."totp_secret_encrypted" is not null;--> statement-breakpoint
CREATE INDEX "users_project_otp_idx" ON "users" USING btree ("project_id","signed_up_at","id") WHERE "users"."otp_auth_enabled";--> statement-breakpoint
CREATE INDEX "users_project_passkey_idx" ON "users" USING btree ("project_id","signed_up_at","id") WHERE "users"."passkey_auth_enabled";--> statement-breakpoint
-- Written by hand below, one statement each: the rollup's backfill from the token refreshes of the last 32 days, all
-- the metrics read
-- (the same rows as features/events/activity-days.ts's refreshDaysOf). Refreshes that instances of the previous
-- release write meanwhile, without the rollup, are what the hourly repair (repairActivityDays) adds.
INSERT INTO "activity_days" ("project_id", "kind", "day", "subject", "known", "previous_day", "known_previous_day", "country", "country_at", "known_country", "known_country_at")
SELECT "project_id", "kind", "day", "subject", "known",
  max("day") OVER "earlier", max("day") FILTER (WHERE "known") OVER "earlier",
  "country", "country_at", "known_country", "known_country_at"
FROM (
  SELECT "project_id", "kind", "day", "subject", bool_or("known") AS "known",
    (array_agg("country_code" ORDER BY "occurred_at" DESC) FILTER (WHERE "country_code" IS NOT NULL AND "kind" = 0))[1] AS "country",
    max("occurred_at") FILTER (WHERE "country_code" IS NOT NULL AND "kind" = 0) AS "country_at",
    (array_agg("country_code" ORDER BY "occurred_at" DESC) FILTER (WHERE "country_code" IS NOT NULL AND "kind" = 0 AND "known"))[1] AS "known_country",
    max("occurred_at") FILTER (WHERE "country_code" IS NOT NULL AND "kind" = 0 AND "known") AS "known_country_at"
  FROM (
    SELECT e."project_id", k."kind", (e."occurred_at" AT TIME ZONE 'UTC')::date AS "day", k."subject",
      (e."data"->>'is_anonymous') IS DISTINCT FROM 'true' AS "known", e."country_code", e."occurred_at"
    FROM "events" e
    CROSS JOIN LATERAL (VALUES (0::smallint, e."user_id"), (1::smallint, e."team_id")) AS k("kind", "subject")
    WHERE e."type" = '$token-refresh' AND k."subject" IS NOT NULL
      AND e."occurred_at" >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '32 days'
  ) "refreshes"
  GROUP BY "project_id", "kind", "day", "subject"
) "keyed"
WINDOW "earlier" AS (PARTITION BY "project_id", "kind", "subject" ORDER BY "day" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);
--> statement-breakpoint
-- The creation day of those rows (features/events/activity-days.ts's createdDayOf).
UPDATE "activity_days" a SET "created_day" = CASE a."kind"
  WHEN 0 THEN (SELECT (u."signed_up_at" AT TIME ZONE 'UTC')::date FROM "users" u WHERE u."project_id" = a."project_id" AND u."id" = a."subject")
  ELSE (SELECT (t."created_at" AT TIME ZONE 'UTC')::date FROM "teams" t WHERE t."project_id" = a."project_id" AND t."id" = a."subject") END;
--> statement-breakpoint
-- Their counts (features/events/activity-days.ts's countsOf).
INSERT INTO "activity_day_counts" ("project_id", "kind", "known_only", "day", "gap", "subjects")
SELECT "project_id", "kind", "known_only", "day", "gap", count(*)
FROM (
  SELECT "project_id", "kind", false AS "known_only", "day", coalesce(("day" - "previous_day")::smallint, 0::smallint) AS "gap"
  FROM "activity_days"
  UNION ALL
  SELECT "project_id", "kind", true, "day", coalesce(("day" - "known_previous_day")::smallint, 0::smallint)
  FROM "activity_days" WHERE "known"
) counted
GROUP BY "project_id", "kind", "known_only", "day", "gap";
--> statement-breakpoint
-- Each user's latest day with a country among them, counted
-- (features/events/activity-days.ts's latestCountries).
INSERT INTO "activity_country_counts" ("project_id", "known_only", "day", "country", "users")
SELECT "project_id", "known_only", "day", "country", count(*)
FROM (
  SELECT DISTINCT ON ("project_id", "subject", "known_only") "project_id", "subject", "known_only", "day", "country"
  FROM (
    SELECT "project_id", "subject", false AS "known_only", "day", "country" FROM "activity_days" WHERE "kind" = 0 AND "country" IS NOT NULL
    UNION ALL
    SELECT "project_id", "subject", true, "day", "known_country" FROM "activity_days" WHERE "kind" = 0 AND "known_country" IS NOT NULL
  ) candidates
  ORDER BY "project_id", "subject", "known_only", "day" DESC
) latest
GROUP BY "project_id", "known_only", "day", "country";
--> statement-breakpoint
-- Their new counts (features/events/activity-days.ts's newCountsOf).
INSERT INTO "activity_new_counts" ("project_id", "kind", "known_only", "day", "gap", "created_day", "subjects")
SELECT "project_id", "kind", "known_only", "day", "gap", "created_day", count(*)
FROM (
  SELECT "project_id", "kind", false AS "known_only", "day", coalesce(("day" - "previous_day")::smallint, 0::smallint) AS "gap", "created_day"
  FROM "activity_days" WHERE "created_day" >= "day" - 32
  UNION ALL
  SELECT "project_id", "kind", true, "day", coalesce(("day" - "known_previous_day")::smallint, 0::smallint), "created_day"
  FROM "activity_days" WHERE "known" AND "created_day" >= "day" - 32
) counted
GROUP BY "project_id", "kind", "known_only", "day", "gap", "created_day";
