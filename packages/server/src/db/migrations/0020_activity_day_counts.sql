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
ALTER TABLE "activity_day_counts" ADD CONSTRAINT "activity_day_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Written by hand below: the counts of the rows 0018 backfilled (features/events/activity-days.ts's countsOf).
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
