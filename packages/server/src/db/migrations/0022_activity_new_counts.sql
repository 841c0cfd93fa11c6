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
ALTER TABLE "activity_days" ADD COLUMN "created_day" date;--> statement-breakpoint
ALTER TABLE "activity_new_counts" ADD CONSTRAINT "activity_new_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Written by hand below: the creation day of the rows 0018 backfilled, then their new counts
-- (features/events/activity-days.ts's createdDayOf and newCountsOf).
UPDATE "activity_days" a SET "created_day" = CASE a."kind"
  WHEN 0 THEN (SELECT (u."signed_up_at" AT TIME ZONE 'UTC')::date FROM "users" u WHERE u."project_id" = a."project_id" AND u."id" = a."subject")
  ELSE (SELECT (t."created_at" AT TIME ZONE 'UTC')::date FROM "teams" t WHERE t."project_id" = a."project_id" AND t."id" = a."subject") END;
--> statement-breakpoint
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
