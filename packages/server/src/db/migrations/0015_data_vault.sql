CREATE TABLE "data_vault_entries" (
	"project_id" text NOT NULL,
	"store_id" text NOT NULL,
	"key_digest" text NOT NULL,
	"value_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "data_vault_entries_project_id_store_id_key_digest_pk" PRIMARY KEY("project_id","store_id","key_digest")
);
--> statement-breakpoint
ALTER TABLE "data_vault_entries" ADD CONSTRAINT "data_vault_entries_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;