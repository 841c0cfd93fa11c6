ALTER TABLE "users" ADD COLUMN "has_verified_primary_email" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- users.has_verified_primary_email follows the user's primary channel: looked at again when a primary verified
-- channel comes or goes. The triggers come before the backfill, so that a channel written meanwhile by the previous
-- release is either in the backfill's snapshot or seen by its trigger.
CREATE FUNCTION "track_verified_primary_email"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed "contact_channels";
BEGIN
  FOREACH changed IN ARRAY CASE TG_OP WHEN 'INSERT' THEN ARRAY[NEW] WHEN 'DELETE' THEN ARRAY[OLD] ELSE ARRAY[OLD, NEW] END LOOP
    UPDATE "users" u SET "has_verified_primary_email" = v."has"
    FROM (SELECT EXISTS (SELECT 1 FROM "contact_channels" c WHERE c."project_id" = changed."project_id"
      AND c."user_id" = changed."user_id" AND c."is_primary" AND c."is_verified") AS "has") v
    WHERE u."id" = changed."user_id" AND u."has_verified_primary_email" IS DISTINCT FROM v."has";
  END LOOP;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "contact_channels_verified_primary_on_insert" AFTER INSERT ON "contact_channels"
  FOR EACH ROW WHEN (NEW."is_primary" AND NEW."is_verified") EXECUTE FUNCTION "track_verified_primary_email"();
--> statement-breakpoint
CREATE TRIGGER "contact_channels_verified_primary_on_delete" AFTER DELETE ON "contact_channels"
  FOR EACH ROW WHEN (OLD."is_primary" AND OLD."is_verified") EXECUTE FUNCTION "track_verified_primary_email"();
--> statement-breakpoint
CREATE TRIGGER "contact_channels_verified_primary_on_update" AFTER UPDATE OF "is_primary", "is_verified", "user_id" ON "contact_channels"
  FOR EACH ROW WHEN ((OLD."is_primary" AND OLD."is_verified", OLD."user_id") IS DISTINCT FROM (NEW."is_primary" AND NEW."is_verified", NEW."user_id"))
  EXECUTE FUNCTION "track_verified_primary_email"();
--> statement-breakpoint
UPDATE "users" u SET "has_verified_primary_email" = true
  WHERE EXISTS (SELECT 1 FROM "contact_channels" c WHERE c."project_id" = u."project_id" AND c."user_id" = u."id"
    AND c."is_primary" AND c."is_verified");
--> statement-breakpoint
CREATE INDEX "users_project_primary_verified_idx" ON "users" USING btree ("project_id","signed_up_at","id") WHERE "users"."has_verified_primary_email";--> statement-breakpoint
CREATE INDEX "users_project_primary_unverified_idx" ON "users" USING btree ("project_id","signed_up_at","id") WHERE not "users"."has_verified_primary_email";
