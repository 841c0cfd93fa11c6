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
	CONSTRAINT "activity_days_project_id_kind_day_subject_pk" PRIMARY KEY("project_id","kind","day","subject")
);
--> statement-breakpoint
ALTER TABLE "activity_days" ADD CONSTRAINT "activity_days_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_days_subject_idx" ON "activity_days" USING btree ("project_id","kind","subject","day");--> statement-breakpoint
-- Written by hand below: the rollup's backfill from the token refreshes of the last 32 days, all the metrics read
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
