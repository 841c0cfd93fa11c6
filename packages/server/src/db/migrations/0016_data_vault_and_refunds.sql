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
ALTER TABLE "product_purchases" ADD COLUMN "refund_id" uuid;--> statement-breakpoint
ALTER TABLE "product_purchases" ADD COLUMN "refund_issued_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "product_purchases" ADD COLUMN "refund_amount_usd" text;--> statement-breakpoint
ALTER TABLE "product_purchases" ADD COLUMN "refund_quantity" integer;--> statement-breakpoint
ALTER TABLE "product_purchases" ADD COLUMN "stripe_refund_id" text;--> statement-breakpoint
ALTER TABLE "data_vault_entries" ADD CONSTRAINT "data_vault_entries_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "product_purchases_project_refunds_idx" ON "product_purchases" USING btree ("project_id","refund_issued_at") WHERE "product_purchases"."refund_issued_at" is not null;