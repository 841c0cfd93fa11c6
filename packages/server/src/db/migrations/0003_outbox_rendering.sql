ALTER TABLE "sent_emails" ALTER COLUMN "subject" SET DEFAULT '';--> statement-breakpoint
ALTER TABLE "sent_emails" ALTER COLUMN "html" SET DEFAULT '';--> statement-breakpoint
ALTER TABLE "sent_emails" ALTER COLUMN "text" SET DEFAULT '';--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "recipient" jsonb;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "tsx_source" text;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "theme_id" text;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "template_id" text;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "variables_encrypted" text;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "subject_override" text;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "notification_category_id" uuid;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "is_high_priority" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "is_transactional" boolean;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "priority" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "created_with" text DEFAULT 'programmatic-call' NOT NULL;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "scheduled_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "is_paused" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "started_rendering_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "rendered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "render_error" text;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "skipped_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "skipped_reason" text;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "skipped_details" jsonb;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "started_sending_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "send_attempt_errors" jsonb;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "failed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "sent_emails_render_due_idx" ON "sent_emails" USING btree ("next_attempt_at") WHERE "sent_emails"."status" in ('preparing', 'rendering');--> statement-breakpoint
CREATE INDEX "sent_emails_project_status_idx" ON "sent_emails" USING btree ("project_id","status","created_at");--> statement-breakpoint
CREATE INDEX "verification_codes_hash_idx" ON "verification_codes" USING btree ("code_hash");--> statement-breakpoint
-- Rows from before rendering moved to the worker were queued already rendered: their recipients are the addresses
-- they list, and their update time is their creation time.
UPDATE "sent_emails" SET "recipient" = jsonb_build_object('type', 'custom-emails', 'emails', "to"), "updated_at" = "created_at";
