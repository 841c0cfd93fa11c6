CREATE TABLE "project_count_days" (
	"project_id" text NOT NULL,
	"day" date NOT NULL,
	"slot" smallint NOT NULL,
	"users" integer DEFAULT 0 NOT NULL,
	"anonymous_users" integer DEFAULT 0 NOT NULL,
	"password_users" integer DEFAULT 0 NOT NULL,
	"otp_users" integer DEFAULT 0 NOT NULL,
	"verified_users" integer DEFAULT 0 NOT NULL,
	"teams" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "project_count_days_project_id_day_slot_pk" PRIMARY KEY("project_id","day","slot")
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "has_verified_email" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "project_count_days" ADD CONSTRAINT "project_count_days_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Written by hand below: the counts' triggers (metrics/schema.ts), after the backfill that the repair job would
-- otherwise do at start (metrics/counts.ts). Changes that land between the backfill and the triggers, from instances
-- of the previous release, are what that job corrects.
UPDATE "users" u SET "has_verified_email" = true
WHERE EXISTS (SELECT 1 FROM "contact_channels" c WHERE c."project_id" = u."project_id" AND c."user_id" = u."id" AND c."type" = 'email' AND c."is_verified");
--> statement-breakpoint
INSERT INTO "project_count_days" ("project_id", "day", "slot", "users", "anonymous_users", "password_users", "otp_users", "verified_users", "teams")
SELECT "project_id", "day", 0, sum("users"), sum("anonymous_users"), sum("password_users"), sum("otp_users"), sum("verified_users"), sum("teams")
FROM (
  SELECT "project_id", ("signed_up_at" AT TIME ZONE 'UTC')::date AS "day", count(*) AS "users",
    count(*) FILTER (WHERE "is_anonymous") AS "anonymous_users", count(*) FILTER (WHERE "password_hash" IS NOT NULL) AS "password_users",
    count(*) FILTER (WHERE "otp_auth_enabled") AS "otp_users", count(*) FILTER (WHERE "has_verified_email" AND NOT "is_anonymous") AS "verified_users",
    0 AS "teams"
  FROM "users" GROUP BY 1, 2
  UNION ALL
  SELECT "project_id", ("created_at" AT TIME ZONE 'UTC')::date, 0, 0, 0, 0, 0, count(*) FROM "teams" GROUP BY 1, 2
) counted
GROUP BY "project_id", "day";
--> statement-breakpoint
-- Users added or removed by one statement, counted per project and sign-up day in one upsert. A removal whose project
-- is gone (a project deleted, its users with it) counts nothing: its counts go with the project.
CREATE FUNCTION "count_users_added_or_removed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sign int := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
BEGIN
  INSERT INTO "project_count_days" AS c ("project_id", "day", "slot", "users", "anonymous_users", "password_users", "otp_users", "verified_users")
  SELECT "project_id", ("signed_up_at" AT TIME ZONE 'UTC')::date, (txid_current() % 8)::smallint, sign * count(*),
    sign * count(*) FILTER (WHERE "is_anonymous"), sign * count(*) FILTER (WHERE "password_hash" IS NOT NULL),
    sign * count(*) FILTER (WHERE "otp_auth_enabled"), sign * count(*) FILTER (WHERE "has_verified_email" AND NOT "is_anonymous")
  FROM "changed_users" u WHERE EXISTS (SELECT 1 FROM "projects" p WHERE p."id" = u."project_id") GROUP BY 1, 2
  ON CONFLICT ("project_id", "day", "slot") DO UPDATE SET "users" = c."users" + excluded."users",
    "anonymous_users" = c."anonymous_users" + excluded."anonymous_users", "password_users" = c."password_users" + excluded."password_users",
    "otp_users" = c."otp_users" + excluded."otp_users", "verified_users" = c."verified_users" + excluded."verified_users";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "users_counted_on_insert" AFTER INSERT ON "users" REFERENCING NEW TABLE AS "changed_users"
  FOR EACH STATEMENT EXECUTE FUNCTION "count_users_added_or_removed"();
--> statement-breakpoint
CREATE TRIGGER "users_counted_on_delete" AFTER DELETE ON "users" REFERENCING OLD TABLE AS "changed_users"
  FOR EACH STATEMENT EXECUTE FUNCTION "count_users_added_or_removed"();
--> statement-breakpoint
-- A user whose counted columns changed (an anonymous user upgraded, a password set, an email verified, the sign-up
-- time moved by an import): the old row taken off its day, the new one added to its own. Row by row, and only for
-- those columns, so that the activity writer's last-active updates never run it.
CREATE FUNCTION "count_user_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "project_count_days" AS c ("project_id", "day", "slot", "users", "anonymous_users", "password_users", "otp_users", "verified_users")
  SELECT "project_id", "day", (txid_current() % 8)::smallint, sum("users"), sum("anonymous_users"), sum("password_users"), sum("otp_users"), sum("verified_users")
  FROM (VALUES
    (OLD."project_id", (OLD."signed_up_at" AT TIME ZONE 'UTC')::date, -1, -OLD."is_anonymous"::int, -(OLD."password_hash" IS NOT NULL)::int,
      -OLD."otp_auth_enabled"::int, -(OLD."has_verified_email" AND NOT OLD."is_anonymous")::int),
    (NEW."project_id", (NEW."signed_up_at" AT TIME ZONE 'UTC')::date, 1, NEW."is_anonymous"::int, (NEW."password_hash" IS NOT NULL)::int,
      NEW."otp_auth_enabled"::int, (NEW."has_verified_email" AND NOT NEW."is_anonymous")::int)
  ) AS v("project_id", "day", "users", "anonymous_users", "password_users", "otp_users", "verified_users")
  GROUP BY "project_id", "day"
  ON CONFLICT ("project_id", "day", "slot") DO UPDATE SET "users" = c."users" + excluded."users",
    "anonymous_users" = c."anonymous_users" + excluded."anonymous_users", "password_users" = c."password_users" + excluded."password_users",
    "otp_users" = c."otp_users" + excluded."otp_users", "verified_users" = c."verified_users" + excluded."verified_users";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "users_counted_on_update" AFTER UPDATE OF "is_anonymous", "password_hash", "otp_auth_enabled", "has_verified_email", "signed_up_at" ON "users"
  FOR EACH ROW WHEN (
    (OLD."is_anonymous", OLD."password_hash" IS NULL, OLD."otp_auth_enabled", OLD."has_verified_email", OLD."signed_up_at")
    IS DISTINCT FROM (NEW."is_anonymous", NEW."password_hash" IS NULL, NEW."otp_auth_enabled", NEW."has_verified_email", NEW."signed_up_at")
  ) EXECUTE FUNCTION "count_user_changed"();
--> statement-breakpoint
CREATE FUNCTION "count_teams_added_or_removed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "project_count_days" AS c ("project_id", "day", "slot", "teams")
  SELECT "project_id", ("created_at" AT TIME ZONE 'UTC')::date, (txid_current() % 8)::smallint,
    CASE WHEN TG_OP = 'INSERT' THEN count(*) ELSE -count(*) END
  FROM "changed_teams" t WHERE EXISTS (SELECT 1 FROM "projects" p WHERE p."id" = t."project_id") GROUP BY 1, 2
  ON CONFLICT ("project_id", "day", "slot") DO UPDATE SET "teams" = c."teams" + excluded."teams";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "teams_counted_on_insert" AFTER INSERT ON "teams" REFERENCING NEW TABLE AS "changed_teams"
  FOR EACH STATEMENT EXECUTE FUNCTION "count_teams_added_or_removed"();
--> statement-breakpoint
CREATE TRIGGER "teams_counted_on_delete" AFTER DELETE ON "teams" REFERENCING OLD TABLE AS "changed_teams"
  FOR EACH STATEMENT EXECUTE FUNCTION "count_teams_added_or_removed"();
--> statement-breakpoint
-- users.has_verified_email follows the user's emails: looked at again when a verified email comes or goes.
CREATE FUNCTION "track_verified_email"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed "contact_channels";
BEGIN
  FOREACH changed IN ARRAY CASE TG_OP WHEN 'INSERT' THEN ARRAY[NEW] WHEN 'DELETE' THEN ARRAY[OLD] ELSE ARRAY[OLD, NEW] END LOOP
    UPDATE "users" u SET "has_verified_email" = v."has"
    FROM (SELECT EXISTS (SELECT 1 FROM "contact_channels" c WHERE c."project_id" = changed."project_id"
      AND c."user_id" = changed."user_id" AND c."type" = 'email' AND c."is_verified") AS "has") v
    WHERE u."id" = changed."user_id" AND u."has_verified_email" IS DISTINCT FROM v."has";
  END LOOP;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "contact_channels_verified_on_insert" AFTER INSERT ON "contact_channels"
  FOR EACH ROW WHEN (NEW."is_verified") EXECUTE FUNCTION "track_verified_email"();
--> statement-breakpoint
CREATE TRIGGER "contact_channels_verified_on_delete" AFTER DELETE ON "contact_channels"
  FOR EACH ROW WHEN (OLD."is_verified") EXECUTE FUNCTION "track_verified_email"();
--> statement-breakpoint
CREATE TRIGGER "contact_channels_verified_on_update" AFTER UPDATE OF "is_verified", "type", "user_id" ON "contact_channels"
  FOR EACH ROW WHEN ((OLD."is_verified", OLD."type", OLD."user_id") IS DISTINCT FROM (NEW."is_verified", NEW."type", NEW."user_id"))
  EXECUTE FUNCTION "track_verified_email"();
