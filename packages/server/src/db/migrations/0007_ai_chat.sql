CREATE TABLE "ai_chat_messages" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"thread_id" text NOT NULL,
	"content" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ai_config_proposals" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"owner_key" text NOT NULL,
	"level" text NOT NULL,
	"override" jsonb NOT NULL,
	"diff" jsonb NOT NULL,
	"summary" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" text
);
--> statement-breakpoint
CREATE TABLE "ai_conversations" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"owner_key" text NOT NULL,
	"title" text NOT NULL,
	"messages" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ai_usage" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"owner_key" text NOT NULL,
	"route" text NOT NULL,
	"model" text NOT NULL,
	"steps" integer NOT NULL,
	"input_tokens" integer,
	"output_tokens" integer,
	"total_tokens" integer,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ai_chat_messages" ADD CONSTRAINT "ai_chat_messages_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_config_proposals" ADD CONSTRAINT "ai_config_proposals_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_conversations" ADD CONSTRAINT "ai_conversations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_usage" ADD CONSTRAINT "ai_usage_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ai_chat_messages_thread_idx" ON "ai_chat_messages" USING btree ("project_id","thread_id","seq");--> statement-breakpoint
CREATE INDEX "ai_config_proposals_project_idx" ON "ai_config_proposals" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "ai_conversations_owner_idx" ON "ai_conversations" USING btree ("project_id","owner_key","updated_at");--> statement-breakpoint
CREATE INDEX "ai_usage_project_idx" ON "ai_usage" USING btree ("project_id","owner_key","created_at");