CREATE TABLE "item_quantity_changes" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"customer_type" text NOT NULL,
	"customer_id" text NOT NULL,
	"item_id" text NOT NULL,
	"quantity" bigint NOT NULL,
	"description" text,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_purchases" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"customer_type" text NOT NULL,
	"customer_id" text NOT NULL,
	"product_id" text,
	"product" jsonb NOT NULL,
	"price_id" text,
	"quantity" integer NOT NULL,
	"kind" text NOT NULL,
	"source" text NOT NULL,
	"test_mode" boolean NOT NULL,
	"interval" jsonb,
	"ends_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"refunded_at" timestamp with time zone,
	"stripe_subscription_id" text,
	"stripe_payment_intent_id" text,
	"idempotency_key" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stripe_accounts" (
	"project_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "stripe_accounts_account_id_unique" UNIQUE("account_id")
);
--> statement-breakpoint
CREATE TABLE "stripe_customers" (
	"project_id" text NOT NULL,
	"customer_type" text NOT NULL,
	"customer_id" text NOT NULL,
	"stripe_customer_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "stripe_customers_project_id_customer_type_customer_id_pk" PRIMARY KEY("project_id","customer_type","customer_id")
);
--> statement-breakpoint
ALTER TABLE "item_quantity_changes" ADD CONSTRAINT "item_quantity_changes_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_purchases" ADD CONSTRAINT "product_purchases_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stripe_accounts" ADD CONSTRAINT "stripe_accounts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stripe_customers" ADD CONSTRAINT "stripe_customers_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "item_quantity_changes_customer_item_idx" ON "item_quantity_changes" USING btree ("project_id","customer_type","customer_id","item_id","created_at");--> statement-breakpoint
CREATE INDEX "item_quantity_changes_project_created_idx" ON "item_quantity_changes" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "product_purchases_customer_idx" ON "product_purchases" USING btree ("project_id","customer_type","customer_id","created_at");--> statement-breakpoint
CREATE INDEX "product_purchases_project_created_idx" ON "product_purchases" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "product_purchases_stripe_subscription_idx" ON "product_purchases" USING btree ("project_id","stripe_subscription_id");--> statement-breakpoint
CREATE INDEX "product_purchases_stripe_payment_intent_idx" ON "product_purchases" USING btree ("project_id","stripe_payment_intent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "product_purchases_idempotency_key_idx" ON "product_purchases" USING btree ("project_id","idempotency_key") WHERE "product_purchases"."idempotency_key" is not null;