CREATE TABLE "activity_country_counts" (
	"project_id" text NOT NULL,
	"known_only" boolean NOT NULL,
	"day" date NOT NULL,
	"country" text NOT NULL,
	"users" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "activity_country_counts_project_id_known_only_day_country_pk" PRIMARY KEY("project_id","known_only","day","country")
);
--> statement-breakpoint
ALTER TABLE "activity_country_counts" ADD CONSTRAINT "activity_country_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Written by hand below: each user's latest day with a country among the rows 0018 backfilled, counted
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
