CREATE TABLE "email_drafts" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"tsx_source" text NOT NULL,
	"theme_mode" text DEFAULT 'project-default' NOT NULL,
	"theme_id" uuid,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_capacity_boosts" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sent_emails" ADD COLUMN "draft_id" uuid;--> statement-breakpoint
ALTER TABLE "email_drafts" ADD CONSTRAINT "email_drafts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_capacity_boosts" ADD CONSTRAINT "email_capacity_boosts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_drafts_project_updated_idx" ON "email_drafts" USING btree ("project_id","updated_at");--> statement-breakpoint
CREATE INDEX "email_capacity_boosts_project_expires_idx" ON "email_capacity_boosts" USING btree ("project_id","expires_at");--> statement-breakpoint
CREATE INDEX "sent_emails_project_sent_idx" ON "sent_emails" USING btree ("project_id","sent_at") WHERE "sent_emails"."status" = 'sent';