CREATE TABLE "known_sign_in_addresses" (
	"project_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"address" text NOT NULL,
	"last_sign_in_at" timestamp with time zone NOT NULL,
	CONSTRAINT "known_sign_in_addresses_project_id_user_id_address_pk" PRIMARY KEY("project_id","user_id","address")
);
--> statement-breakpoint
-- A counter is now one row per key (its window starts at its first attempt). The old rows, one per key and
-- clock-aligned window, cannot all stay under that key; counters only live minutes, so they start over.
DELETE FROM "rate_limit_counters";--> statement-breakpoint
ALTER TABLE "rate_limit_counters" DROP CONSTRAINT "rate_limit_counters_key_window_start_pk";--> statement-breakpoint
ALTER TABLE "rate_limit_counters" ADD PRIMARY KEY ("key");--> statement-breakpoint
ALTER TABLE "rate_limit_counters" ADD COLUMN "slow_passes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rate_limit_counters" ADD COLUMN "slow_next_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "known_sign_in_addresses" ADD CONSTRAINT "known_sign_in_addresses_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "known_sign_in_addresses" ADD CONSTRAINT "known_sign_in_addresses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "known_sign_in_addresses_last_idx" ON "known_sign_in_addresses" USING btree ("last_sign_in_at");--> statement-breakpoint
CREATE INDEX "rate_limit_counters_window_start_idx" ON "rate_limit_counters" USING btree ("window_start");